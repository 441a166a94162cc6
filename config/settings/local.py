"""Developer defaults for `manage.py`: DEBUG on, and the embedded PostgreSQL that
`make run` keeps in DATA_DIR (default .data/) unless DATABASE_URL says otherwise. The
web, worker and beat processes never use this module."""

import os
from pathlib import Path

_data_dir = Path(os.environ.get("DATA_DIR", Path(__file__).resolve().parents[2] / ".data"))
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault(
    "DATABASE_URL", f"postgres://postgres@/liarsdice?host={_data_dir.resolve() / 'postgres'}"
)

from .base import *  # noqa: E402,F403
