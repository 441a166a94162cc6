"""Error codes are declared once: each is a class (its code and status) in an app's
`errors.py`, services raise those classes, and the OpenAPI document lists no code that
no class declares."""

import ast
import importlib
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import exceptions

from accounts.authentication import TokenExpired
from core.errors import DomainError, Problem
from core.problems import problem_exception_handler
from core.schema import PROBLEMS_EXTENSION, problems
from games import engine
from games.errors import RULES_ERRORS, MatchFull, NotCreator, NotYourTurn, rules_error

ROOT = Path(__file__).resolve().parents[2]
APPS = ("core", "ledger", "accounts", "games", "moderation")
ERROR_MODULES = {f"{app}.errors" for app in APPS}
# Bases that name no failure of their own: raising one directly is a code made up inline.
BASES = {"Problem", "DomainError", "ConflictError", "PermissionDeniedError"}


def _declared() -> list[type[Problem]]:
    for module in ERROR_MODULES:
        importlib.import_module(module)
    found, todo = [], [Problem]
    while todo:
        for subclass in todo.pop().__subclasses__():
            found.append(subclass)
            todo.append(subclass)
    return found


def _source_files() -> list[Path]:
    return [
        path
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts and "engine" not in path.parts
    ]


def test_every_problem_class_is_declared_in_an_errors_module():
    elsewhere = [
        f"{c.__module__}.{c.__name__}"
        for c in _declared()
        if c.__module__.split(".")[0] in APPS and c.__module__ not in ERROR_MODULES
    ]
    assert not elsewhere


def test_every_code_the_schema_documents_comes_from_a_declared_class():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    documented = set(schema["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    declared = {c.code for c in _declared()}
    assert documented - declared == set()
    # Every operation's problems sit under the status their classes declare.
    status_of = {(c.code, c.status) for c in _declared()}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if not status.startswith(("4", "5")):
                    continue
                listed = response["description"].rsplit(": ", 1)[1].rstrip(".")
                for code in (c.strip("` ") for c in listed.split(",")):
                    assert (code, int(status)) in status_of, f"{method} {path}: {status} {code}"


def test_no_service_raises_a_code_written_inline():
    """`raise SomeError(detail)` only: no `code=`/`status=` next to a raise, and no raise
    of a base class that names no failure."""
    names = {c.__name__ for c in _declared()} | BASES
    found = []
    for path in _source_files():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            callee = node.exc.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            inline = {k.arg for k in node.exc.keywords} & {"code", "status"}
            if name in BASES or (name in names and inline):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert not found


def test_every_engine_code_has_its_class():
    assert set(RULES_ERRORS) == {code.value for code in engine.ErrorCode}
    for code in engine.ErrorCode:
        error = rules_error(engine.IllegalAction(code, "refused"))
        assert (error.code, error.detail) == (code.value, "refused")
    assert rules_error(engine.IllegalAction(engine.ErrorCode.NOT_YOUR_TURN, "x")).status == 409
    assert isinstance(rules_error(engine.InvalidRules("lives", "x")), DomainError)


@pytest.mark.parametrize(
    "exc",
    [
        exceptions.NotAuthenticated(),
        exceptions.AuthenticationFailed(),
        TokenExpired(),
        exceptions.PermissionDenied(),
        exceptions.NotFound(),
        exceptions.MethodNotAllowed("PUT"),
        exceptions.NotAcceptable(),
        exceptions.UnsupportedMediaType("text/plain"),
        exceptions.Throttled(3),
        exceptions.ParseError(),
        exceptions.ValidationError({"face": ["Required."]}),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_framework_errors_answer_declared_codes(exc):
    body = problem_exception_handler(exc, {}).data
    assert (body["code"], body["status"]) in {(c.code, c.status) for c in _declared()}


def test_problems_lists_the_classes_codes_by_their_status():
    assert problems(MatchFull, NotCreator, NotYourTurn) == {
        PROBLEMS_EXTENSION: {"409": ["match_full", "not_your_turn"], "403": ["not_creator"]}
    }
