"""What a token may do: its scopes, and the scope each API operation needs.

Every API view declares `token_scope`: one scope for all its methods, or a dict by HTTP
method; `None` (for a whole view or one method) says the operation needs no scope (it
reads no token, or a token may always do it: log itself out). `tests/accounts/
test_scopes.py` fails when an operation declares nothing."""

from django.core.exceptions import ImproperlyConfigured

READ = "read"
PLAY = "play"
CHAT = "chat"
CHALLENGE = "challenge"
ACCOUNT = "account"

# Each scope and what it allows, as docs/API.md and the schema say.
SCOPES = {
    READ: "Read matches, tournaments, events, streams, your account, challenges and seeks.",
    PLAY: "Create, join, leave and start matches, add bots, act and resign; agree to "
    "abort, claim a win, offer and accept rematches; create, enter, leave and cancel "
    "tournaments.",
    CHAT: "Send chat messages.",
    CHALLENGE: "Send, answer and cancel challenges; seek and withdraw quick play.",
    ACCOUNT: "Change your account; list and revoke tokens; manage webhooks; report players.",
}


def all_scopes() -> list[str]:
    """A token's scopes when none are asked for (and every token's from before scopes)."""
    return list(SCOPES)


def required_scope(view: object, method: str) -> str | None:
    """The scope `view` declares for `method` (None: none needed); a view declaring
    nothing is a mistake, refused rather than let through."""
    if method == "HEAD":
        method = "GET"
    try:
        declared = view.token_scope  # type: ignore[attr-defined]
    except AttributeError as exc:
        raise ImproperlyConfigured(f"{type(view).__name__} declares no token_scope.") from exc
    if isinstance(declared, dict):
        if method not in declared:
            raise ImproperlyConfigured(
                f"{type(view).__name__}.token_scope names no scope for {method}."
            )
        return declared[method]
    return declared
