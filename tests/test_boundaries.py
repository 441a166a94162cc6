"""Boundaries the import linter cannot see: private names across apps, paths out of the repo."""

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Built so that this file does not name the path it looks for.
OUTSIDE = "../" + "shared"
APPS = ("config", "core", "ledger", "accounts", "games", "moderation")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(path: Path, own_app: str) -> list[str]:
    """Private names (or private modules) that `path` takes from an app other than its own."""
    tree = ast.parse(path.read_text(), filename=str(path))

    def foreign(module: str) -> bool:
        top = module.split(".")[0]
        return top in APPS and top != own_app

    found, other_app_aliases = _private_imports(tree, foreign)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in other_app_aliases
            and _is_private(node.attr)
        ):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


def _private_imports(tree: ast.AST, foreign) -> tuple[list[str], set[str]]:
    """Private names imported from other apps, and the names other apps' modules go by."""
    other_app_aliases: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not foreign(node.module):
                continue
            if any(_is_private(part) for part in node.module.split(".")):
                found.append(f"{node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
                other_app_aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not foreign(alias.name):
                    continue
                if any(_is_private(part) for part in alias.name.split(".")):
                    found.append(f"{node.lineno}: import {alias.name}")
                other_app_aliases.add(alias.asname or alias.name.split(".")[0])
    return found, other_app_aliases


def _project_files(*suffixes: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if name.endswith(suffixes) and (ROOT / name).exists()]


def test_no_app_uses_a_private_name_of_another_app():
    offences = []
    for path in _project_files(".py"):
        own_app = path.relative_to(ROOT).parts[0]
        if own_app not in APPS:
            continue
        offences += [f"{path.relative_to(ROOT)}:{use}" for use in _private_uses(path, own_app)]
    assert offences == []


def test_the_checker_sees_each_form_of_private_use(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from games.services import _lock\n"
        "from games.engine._common import x\n"
        "import games.services as gs\n"
        "gs._append_events()\n"
        "from games import services\n"
        "services._timeout_locked()\n"
        "from moderation import audit\n"
    )
    assert len(_private_uses(sample, "games")) == 0
    assert len(_private_uses(sample, "moderation")) == 4


def test_nothing_points_outside_the_repository():
    offences = [
        str(path.relative_to(ROOT))
        for path in _project_files(".py", ".md", ".toml", ".txt", ".yaml", ".yml", ".html", ".js")
        if OUTSIDE in path.read_text(errors="ignore")
    ]
    assert offences == []


# The event store's writers: rows of the match log, account events and webhook deliveries
# are made only by the publisher, through the stores' own appenders.
PUBLISHER = "games/services/publish.py"
EVENT_WRITERS = {
    "MatchEvent": {PUBLISHER},
    "AccountEvent": {"accounts/events.py"},
    "AccountEventCounter": {"accounts/events.py"},
    "WebhookDelivery": {"accounts/webhooks.py"},
    "account_events_append": {PUBLISHER, "accounts/events.py"},
    "deliveries_record": {PUBLISHER, "accounts/webhooks.py"},
}
# Their tables, for raw SQL, and the related managers that create rows of them.
EVENT_TABLES = {
    "games_matchevent": "MatchEvent",
    "accounts_accountevent": "AccountEvent",
    "accounts_accounteventcounter": "AccountEventCounter",
    "accounts_webhookdelivery": "WebhookDelivery",
}
RELATED_MANAGERS = {"events": "MatchEvent", "account_events": "AccountEvent"}
RELATED_MANAGERS["deliveries"] = "WebhookDelivery"
CREATING = {"create", "bulk_create", "get_or_create", "update_or_create"}


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _import_aliases(tree: ast.AST) -> dict[str, str]:
    """The local names of the watched names (each under its own, and any `as`)."""
    aliases = {name: name for name in EVENT_WRITERS}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in EVENT_WRITERS:
                    aliases[alias.asname or alias.name] = alias.name
    return aliases


def _call_writes(call: ast.Call, aliases: dict[str, str]) -> str | None:
    """The watched name a call makes a row of (or appends through), if any."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in aliases:
        return aliases[func.id]
    if isinstance(func, ast.Name) and func.id == "PrebuiltInsert" and call.args:
        return aliases.get(_root_name(call.args[0]) or "")
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in EVENT_WRITERS:
        return func.attr
    if func.attr not in CREATING:
        return None
    if _root_name(func) in aliases:
        return aliases[_root_name(func)]
    manager = func.value
    if isinstance(manager, ast.Attribute):
        return RELATED_MANAGERS.get(manager.attr)
    return None


def _event_writes(source: str) -> list[tuple[int, str]]:
    """(line, watched name) for each place `source` makes an event or delivery row or
    calls a store's appender: a call of the name (under any import alias, or as
    `module.Name`), a create through its manager or a related manager, a prebuilt
    INSERT of it, or its table named in SQL."""
    tree = ast.parse(source)
    aliases = _import_aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.lower()
            found += [(node.lineno, m) for t, m in EVENT_TABLES.items() if t in text]
        elif isinstance(node, ast.Call) and (name := _call_writes(node, aliases)):
            found.append((node.lineno, name))
    return found


def test_the_event_writer_scan_sees_each_way_of_making_rows():
    sample = (
        "from games.models import MatchEvent as E\n"
        "from games import models\n"
        "E(match=m)\n"
        "models.MatchEvent(match=m)\n"
        "MatchEvent.objects.using('x').create()\n"
        "match.events.create(seq=1)\n"
        "hook.deliveries.bulk_create([])\n"
        "PrebuiltInsert(MatchEvent)\n"
        "cursor.execute('INSERT INTO games_matchevent VALUES (1)')\n"
        "account_events_append([], created_at=now)\n"
    )
    assert [line for line, _ in sorted(_event_writes(sample))] == list(range(3, 11))


def test_only_the_publisher_creates_event_and_delivery_rows():
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            if "/migrations/" in relative:
                continue
            for line, name in _event_writes(path.read_text()):
                if relative not in EVENT_WRITERS[name]:
                    found.append(f"{relative}:{line}: {name}")
    assert not found, "event or delivery rows made outside the publisher:\n" + "\n".join(found)
