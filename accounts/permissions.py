"""The token scope check every API operation runs (settings' DEFAULT_PERMISSION_CLASSES,
and the public reads' own lists). DRF loads it while `rest_framework.views` is being
imported: it imports neither DRF's views nor a model."""

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.errors import InsufficientScope
from accounts.scopes import required_scope


class TokenHasScope(BasePermission):
    """The request's token carries the scope its operation declares (`token_scope`,
    `accounts.scopes`); else 403 `insufficient_scope`. A request without a token (a
    public read) needs none."""

    def has_permission(self, request: Request, view: Any) -> bool:
        scopes = getattr(request.auth, "scopes", None)  # an ApiToken's
        if scopes is None or request.method == "OPTIONS":
            return True
        if not hasattr(view, request.method.lower()):
            return True  # a method the view lacks: its 405 follows
        needed = required_scope(view, request.method)
        if needed is not None and needed not in scopes:
            raise InsufficientScope(needed)
        return True
