from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app builds on: problem+json errors, pagination, parsers, fields,
    middleware, idempotency. Imports no other app of the project."""

    name = "core"
