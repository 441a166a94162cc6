// Provably fair dice, checked here in the browser: each round publishes
// commitment = SHA-256("<salt>:<d1>,<d2>,...") per seat (per box in poker dice) while
// the dice are hidden; the finished round reveals the dice and the salts.

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function commitmentText(salt, dice) {
  return `${salt}:${dice.map(String).join(",")}`;
}

// {key: "verified" | "mismatch" | "missing" | "unavailable"} for every key of
// record.dice (a seat number, or "box").
export async function verifyRound(record) {
  const out = {};
  const canHash = Boolean(globalThis.crypto?.subtle);
  for (const [key, dice] of Object.entries(record.dice || {})) {
    const published = record.dice_commitments?.[key];
    const salt = record.salts?.[key];
    if (!published || salt === undefined) out[key] = "missing";
    else if (!canHash) out[key] = "unavailable"; // crypto.subtle needs HTTPS or localhost
    else out[key] = (await sha256Hex(commitmentText(salt, dice))) === published ? "verified" : "mismatch";
  }
  return out;
}
