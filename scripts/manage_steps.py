"""Runs several `manage.py` commands in one Django process, each given as a JSON list of
its arguments, in order, stopping at the first that fails:

    python -m scripts.manage_steps '["migrate", "--noinput"]' '["collectstatic", "--noinput"]'

Each `manage.py` run pays Django's start-up (2-3 s on a busy 2-core machine): `make run`
ran three of them before the server started, 9 of the 21 s a restart took.
"""

import json
import os
import sys

import django
from django.core.management import call_command


def main(steps: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")  # as manage.py
    django.setup()
    for step in steps:
        name, *args = json.loads(step)
        call_command(name, *args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
