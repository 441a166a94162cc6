"""Validates real responses against the server's own OpenAPI document, strictly: every
object the schema describes with `properties` is closed (`additionalProperties: false`),
so an undocumented field fails as surely as a missing or mistyped one."""

import copy
import re
from typing import Any

from jsonschema import Draft202012Validator

_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def _close_objects(node: Any) -> None:
    if isinstance(node, dict):
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _close_objects(value)
    elif isinstance(node, list):
        for value in node:
            _close_objects(value)


def timestamps(node: Any) -> list[str]:
    """Every string in `node` that starts like an RFC 3339 timestamp."""
    if isinstance(node, dict):
        return [t for v in node.values() for t in timestamps(v)]
    if isinstance(node, list):
        return [t for v in node for t in timestamps(v)]
    return [node] if isinstance(node, str) and _TIMESTAMP.match(node) else []


class Contract:
    """The document's operations, and a strict validator per component."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.components = copy.deepcopy(document["components"])
        _close_objects(self.components)
        self.routes = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), path)
            for path in document["paths"]
        ]
        self.checked: dict[str, int] = {}

    def validator(self, schema: dict[str, Any]) -> Draft202012Validator:
        root = {**copy.deepcopy(schema), "components": self.components}
        _close_objects(root)
        return Draft202012Validator(root)

    def component(self, name: str) -> Draft202012Validator:
        return self.validator({"$ref": f"#/components/schemas/{name}"})

    def template(self, path: str) -> str | None:
        """The document's path (with `{parameters}`) that `path` falls under, if any."""
        return next((t for pattern, t in self.routes if pattern.match(path)), None)

    def check(self, method: str, path: str, response: Any) -> Any:
        """Asserts that `response` is one the document lists for this operation, with a
        body that fits its schema exactly; returns the body."""
        template = self.template(path)
        assert template is not None, f"{path} is not in the schema"
        operation = self.document["paths"][template][method.lower()]
        status = str(response.status_code)
        assert status in operation["responses"], (
            f"{method} {template} answered {status}, which the schema does not list"
        )
        documented = operation["responses"][status]
        missing = [h for h in documented.get("headers", {}) if not response.has_header(h)]
        assert not missing, f"{method} {template} {status}: documented headers missing {missing}"
        if response.status_code == 204:
            return None
        content_type = response["Content-Type"].split(";")[0]
        assert content_type in documented.get("content", {}), (
            f"{method} {template} {status}: {content_type} not documented"
        )
        body = response.json()
        schema = documented["content"][content_type]["schema"]
        errors = sorted(self.validator(schema).iter_errors(body), key=lambda e: e.path)
        assert not errors, f"{method} {template} {status}: " + "; ".join(
            f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5]
        )
        late = [t for t in timestamps(body) if not t.endswith("Z")]
        assert not late, f"{method} {template}: timestamps not in UTC `Z` form: {late[:3]}"
        key = f"{method.upper()} {template} {status}"
        self.checked[key] = self.checked.get(key, 0) + 1
        return body
