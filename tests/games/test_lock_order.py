"""The lock order is written once, in games/services/locks.py, and games locks only
through it: no other games module takes a lock itself, and the order names every kind
of lock the code takes (a row lock by its model, an advisory lock by its function in
locks.py or, in a lower layer, by its module). Read from the source."""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps

from games.services import locks

ROOT = Path(__file__).resolve().parent.parent.parent
APPS = ("core", "ledger", "accounts", "games", "tournaments", "moderation")
LOCKS = ROOT / "games" / "services" / "locks.py"
# SQL that locks rows: a locking clause in a statement.
ROW_LOCK_SQL = re.compile(r"\bFOR\s+(?:UPDATE|NO\s+KEY\s+UPDATE|SHARE|KEY\s+SHARE)\b")
STATEMENT = re.compile(r"\b(?:SELECT|WHERE)\b")
FROM_TABLE = re.compile(r"\bFROM\s+(\w+)")
ADVISORY_LOCK = re.compile(r"\bpg_(?:try_)?advisory(?:_xact)?_lock(?:_shared)?\b")


@dataclass(frozen=True)
class Lock:
    where: str  # path:line
    kind: str | None  # None: what it locks cannot be read from the source


def _models_by_table() -> dict[str, str]:
    return {model._meta.db_table: model.__name__ for model in apps.get_models()}


def _locks_in(path: Path, tables: dict[str, str], root: Path = ROOT) -> list[Lock]:
    """Every lock `path` takes: `select_for_update`, SQL with a locking clause, and
    advisory locks (docstrings and comments aside)."""
    text = path.read_text()
    if not (ROW_LOCK_SQL.search(text) or ADVISORY_LOCK.search(text) or "select_for_update" in text):
        return []
    tree = ast.parse(text, filename=str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    found = []
    for node in ast.walk(tree):
        kind: str | None
        if isinstance(node, ast.Attribute) and node.attr == "select_for_update":
            kind = _model_locked_by(node.value, _enclosing(node, parents, ast.FunctionDef))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node not in docstrings
        ):
            if ADVISORY_LOCK.search(node.value):
                function = _enclosing(node, parents, ast.FunctionDef)
                kind = function.name if path == LOCKS and function else module
            elif ROW_LOCK_SQL.search(node.value) and STATEMENT.search(node.value):
                kind = _model_locked_by_sql(node, node.value, parents, tables)
            else:
                continue
        else:
            continue
        found.append(Lock(f"{path.relative_to(root)}:{node.lineno}", kind))
    return found


def _enclosing(node: ast.AST, parents: dict, node_type: type) -> ast.AST | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, node_type):
            return node
    return None


def _model_locked_by(receiver: ast.AST, function: ast.FunctionDef | None) -> str | None:
    """`Model.objects.select_for_update`, or that of a parameter typed `QuerySet[Model]`."""
    if (
        isinstance(receiver, ast.Attribute)
        and receiver.attr == "objects"
        and isinstance(receiver.value, ast.Name)
    ):
        return receiver.value.id
    if isinstance(receiver, ast.Name) and function is not None:
        for arg in function.args.args + function.args.kwonlyargs:
            annotation = arg.annotation
            if (
                arg.arg == receiver.id
                and isinstance(annotation, ast.Subscript)
                and isinstance(annotation.value, ast.Name)
                and annotation.value.id == "QuerySet"
                and isinstance(annotation.slice, ast.Name)
            ):
                return annotation.slice.id
    return None


def _model_locked_by_sql(node: ast.AST, sql: str, parents: dict, tables: dict) -> str | None:
    """The model of `PrebuiltSelect(Model, "... FOR UPDATE")`, or of the table the SQL
    selects FROM."""
    call = parents.get(node)
    if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name):
        name = call.func.id if isinstance(call.func, ast.Name) else None
        if name == "PrebuiltSelect":
            return call.args[0].id
    table = FROM_TABLE.search(sql)
    return tables.get(table.group(1)) if table else None


def _source_files(*apps_: str) -> list[Path]:
    return sorted(path for app in apps_ for path in (ROOT / app).rglob("*.py"))


def test_no_games_module_but_locks_takes_a_lock_itself():
    tables = _models_by_table()
    taken = [
        lock for path in _source_files("games") if path != LOCKS for lock in _locks_in(path, tables)
    ]
    assert taken == []


def test_the_lock_order_names_every_kind_of_lock_the_code_takes():
    tables = _models_by_table()
    taken = [lock for path in _source_files(*APPS) for lock in _locks_in(path, tables)]
    kinds = {lock.kind for lock in taken}
    assert {"Match", "Account", "User", "Seek", "Challenge", "seek_pool_lock"} <= kinds
    assert [lock.where for lock in taken if lock.kind is None] == []
    order = locks.__doc__
    assert sorted(kind for kind in kinds if f"`{kind}`" not in order) == []


def test_the_scan_sees_each_form_of_lock(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""A docstring is no lock: SELECT 1 FOR UPDATE, pg_advisory_lock."""\n'
        "def f(seeks: QuerySet[Seek], other):\n"
        '    """Nor this: WHERE x FOR UPDATE."""\n'
        "    Match.objects.select_for_update().get(pk=1)\n"
        "    seeks.select_for_update(of=('self',))\n"
        "    other.select_for_update()\n"
        '    cursor.execute("SELECT id FROM games_match WHERE id = %s FOR NO KEY UPDATE")\n'
        '    cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [1])\n'
        '    cursor.execute("SELECT pg_advisory_unlock(%s)", [1])  # not a lock\n'
        '    PrebuiltSelect(Challenge, "WHERE c.id = %s FOR UPDATE OF c")\n'
        '    cursor.execute("SELECT 1 FROM nowhere FOR SHARE")\n'
        '    message = "FOR UPDATE cannot be used here."  # no statement\n'
    )
    kinds = [lock.kind for lock in _locks_in(sample, {"games_match": "Match"}, tmp_path)]
    assert sorted(kinds, key=str) == sorted(
        ["Match", "Seek", None, "Match", "sample", "Challenge", None], key=str
    )
