"""The token scope of every operation in the OpenAPI document: the scope list of its
bearer security requirement (OpenAPI 3.1 allows one on any scheme), from the view's
`token_scope` (`accounts.scopes`)."""

from typing import Any

from drf_spectacular.openapi import AutoSchema

from accounts.errors import InsufficientScope
from accounts.scopes import SCOPES, required_scope
from core.schema import PROBLEMS_EXTENSION, problems

BEARER = "bearerAuth"


class ScopedAutoSchema(AutoSchema):
    def get_auth(self) -> list[dict[str, list[str]]]:
        requirements = super().get_auth()
        scope = required_scope(self.view, self.method)
        if scope is None:
            return requirements
        return [{name: [scope] for name in requirement} for requirement in requirements]

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is not None and required_scope(self.view, self.method) is not None:
            # Copies: the view's `extend_schema` holds the lists it declared.
            listed = {k: list(v) for k, v in operation.get(PROBLEMS_EXTENSION, {}).items()}
            for status, codes in problems(InsufficientScope)[PROBLEMS_EXTENSION].items():
                known = listed.setdefault(status, [])
                known.extend(c for c in codes if c not in known)
            operation[PROBLEMS_EXTENSION] = listed
        return operation


def describe_scopes(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular hook: the bearer scheme says what each scope allows."""
    listed = " ".join(f"`{scope}`: {allows}" for scope, allows in SCOPES.items())
    scheme = result["components"]["securitySchemes"][BEARER]
    scheme["description"] = (
        "`Authorization: Bearer <token>`. A token carries scopes, chosen when it is issued "
        "(all by default); an operation lists the one it needs in its security requirement "
        f"and answers 403 `insufficient_scope` to a token without it. {listed}"
    )
    return result
