"""Lint, format, import contracts and migrations are part of the suite, so CI (make test)
enforces them."""

import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
RUFF = Path(sys.executable).with_name("ruff")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff(args):
    result = subprocess.run([str(RUFF), *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_contracts():
    """pyproject.toml's contracts: the layers, and an engine free of Django and the apps."""
    result = subprocess.run([str(LINT_IMPORTS)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_engine_imports_only_itself_and_the_standard_library():
    """Stricter than the contract's list: a new app or package is forbidden too."""
    graph = grimp.build_graph("games", include_external_packages=True)
    outside = sorted(
        (module, imported)
        for module in graph.find_descendants("games.engine") | {"games.engine"}
        for imported in graph.find_modules_directly_imported_by(module)
        if not imported.startswith("games.engine")
        and imported.split(".")[0] not in sys.stdlib_module_names
    )
    assert outside == []


@pytest.mark.django_db
def test_no_missing_migrations():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
