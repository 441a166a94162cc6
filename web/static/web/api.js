// The public API, as any third-party client uses it: bearer token, JSON, problem+json.
//
// The token is kept in sessionStorage: it lives only as long as the tab, is not sent
// with every request the way a cookie is (so no CSRF exposure), and the page's strict
// Content-Security-Policy allows no script but the page's own to read it.

const TOKEN_KEY = "liarsdice.token";
export const API = "/api/v1/";

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  save(token) {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear() {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code;
  }
}

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function authHeaders(extra = {}) {
  const headers = { Accept: "application/json", ...extra };
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  return headers;
}

// One API call. A POST carries an Idempotency-Key, so the one retry after a network
// failure cannot apply an action twice.
export async function api(path, { method = "GET", body, signal } = {}) {
  const headers = authHeaders(body === undefined ? {} : { "Content-Type": "application/json" });
  if (method === "POST") headers["Idempotency-Key"] = newKey();
  const init = { method, headers, signal };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(API + path, init);
  } catch (error) {
    if (signal?.aborted || method === "GET") throw error;
    response = await fetch(API + path, init);
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    if (response.status === 401 && session.token) {
      session.clear();
      window.dispatchEvent(new Event("liarsdice:logged-out"));
    }
    throw new ApiError(response.status, data);
  }
  return data;
}
