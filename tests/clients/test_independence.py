"""The client library is a third party's program: it imports nothing of the server's."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python"
SERVER = {
    "core",
    "ledger",
    "accounts",
    "games",
    "moderation",
    "config",
    "web",
    "django",
    "rest_framework",
    "drf_spectacular",
    "celery",
    "tests",
    "scripts",
}


def test_the_library_imports_nothing_of_the_server():
    imported = set()
    for path in (SOURCE / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert imported, "nothing parsed"
    assert not imported & SERVER, imported & SERVER


@pytest.mark.slow
def test_the_package_installs_on_its_own(tmp_path):
    """As a bot author installs it (`pip install ./clients/python`), from a copy (a build
    writes beside the sources)."""
    source = shutil.copytree(SOURCE, tmp_path / "source")
    target = tmp_path / "target"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    assert (target / "liarsdice" / "bot.py").exists()
    probe = "import liarsdice, sys; print(liarsdice.__file__); print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=target,
        env={"PYTHONPATH": str(target)},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out == [str(target / "liarsdice" / "__init__.py"), "False"]
