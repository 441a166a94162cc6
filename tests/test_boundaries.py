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
EVENT_WRITERS = {
    "MatchEvent": {"games/services/publish.py"},
    "account_events_append": {"games/services/publish.py", "accounts/events.py"},
    "deliveries_record": {"games/services/publish.py", "accounts/webhooks.py"},
    "WebhookDelivery": {"accounts/webhooks.py"},
    "AccountEvent": {"accounts/events.py"},
}


def _creates(tree: ast.AST, name: str) -> list[int]:
    """Lines that call `name(...)` (a row built, an appender called), or that create
    rows of model `name` through its manager (`name.objects.create/bulk_create`)."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id == name) or (
            isinstance(func, ast.Attribute)
            and func.attr in ("create", "bulk_create", "get_or_create", "update_or_create")
            and isinstance(func.value, ast.Attribute)
            and isinstance(func.value.value, ast.Name)
            and func.value.value.id == name
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_publisher_creates_event_and_delivery_rows():
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            if "/migrations/" in relative:
                continue
            tree = ast.parse(path.read_text(), filename=relative)
            for name, allowed in EVENT_WRITERS.items():
                if relative not in allowed:
                    found += [f"{relative}:{line}: {name}" for line in _creates(tree, name)]
    assert not found, "event or delivery rows made outside the publisher:\n" + "\n".join(found)
