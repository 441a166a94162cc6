"""Hot reads and writes with their SQL built once per process.

Django builds a query's SQL anew on every call (resolving lookups, joins, columns): for
a one-row lookup by key that costs ~0.5 ms of CPU here, where running it costs ~0.1 ms.
The few reads every request makes (its token, a match, a wallet) are worth a
`PrebuiltSelect`: the SELECT is built from the models' own fields the first time it is
used (so it follows the models), the WHERE is written by hand, and rows become model
instances through `Model.from_db` with each field's own conversions, as the ORM does.

A move's writes (its log entry, its events, the match row, the players' account events)
are statements whose results nobody reads: `PrebuiltInsert` and `PrebuiltUpdate` build
them from model instances with each field's own preparation, as `bulk_create` and
`save(update_fields=...)` do, and `Writes` sends them to PostgreSQL together, in one
round trip instead of one each. Everything else uses the ORM.
"""

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Field, Model
from django.db.models.fields import AutoFieldMixin
from django.db.transaction import TransactionManagementError


def table(model: type[Model]) -> str:
    """The model's table name, quoted, for hand-written SQL."""
    return connection.ops.quote_name(model._meta.db_table)


class _Columns:
    """One model's concrete fields as selected under `alias`, and how to read them."""

    def __init__(self, model: type[Model], alias: str) -> None:
        quote = connection.ops.quote_name
        fields = model._meta.concrete_fields
        self.model = model
        self.attnames = [field.attname for field in fields]
        self.sql = ", ".join(f"{alias}.{quote(field.column)}" for field in fields)
        self.converters: list[tuple[int, Field, list[Callable]]] = [
            (index, field, converters)
            for index, field in enumerate(fields)
            if (converters := field.get_db_converters(connection))
        ]

    def instance(self, values: Sequence[Any]) -> Model:
        values = list(values)
        for index, field, converters in self.converters:
            for convert in converters:
                values[index] = convert(values[index], field, connection)
        return self.model.from_db(connection.alias, self.attnames, values)


class PrebuiltSelect:
    """`SELECT <model's columns> FROM <model's table> AS m [JOIN <related>] <rest>`, run
    with `one(params)` (the model instance of the first row, or None) or `all(params)`
    (one for each row).

    `related` names a foreign key whose row comes with it (as `select_related` would),
    joined as `r` (LEFT JOIN when the key may be NULL); `annotations` are SQL
    expressions set as attributes of each instance (as `annotate` would); `rest` is the
    hand-written remainder (`WHERE m.id = %s FOR UPDATE OF m`), with `%s` parameters."""

    def __init__(
        self,
        model: type[Model],
        rest: str,
        *,
        related: str | None = None,
        annotations: dict[str, str] | None = None,
    ) -> None:
        self.model = model
        self.rest = rest
        self.related = related
        self.annotations = annotations or {}
        self.locks = "FOR UPDATE" in rest.upper()
        self._built: tuple[str, _Columns, _Columns | None] | None = None
        self._key_attname = model._meta.get_field(related).attname if related else None

    def _build(self) -> tuple[str, _Columns, _Columns | None]:
        quote = connection.ops.quote_name
        main = _Columns(self.model, "m")
        select = f"SELECT {main.sql}"
        source = f"FROM {table(self.model)} m"
        joined = None
        if self.related is not None:
            key = self.model._meta.get_field(self.related)
            joined = _Columns(key.related_model, "r")
            join = "LEFT JOIN" if key.null else "JOIN"
            target = quote(key.target_field.column)
            select += f", {joined.sql}"
            source += f" {join} {table(key.related_model)} r ON r.{target} = m.{quote(key.column)}"
        for expression in self.annotations.values():
            select += f", {expression}"
        return f"{select} {source} {self.rest}", main, joined

    def one(self, params: Sequence[Any]) -> Model | None:
        rows = self._rows(params, many=False)
        return self.instance(rows[0]) if rows else None

    def all(self, params: Sequence[Any]) -> list[Model]:
        return [self.instance(row) for row in self._rows(params, many=True)]

    def sql(self) -> str:
        if self.locks and not connection.in_atomic_block:
            # As select_for_update(): a lock taken in autocommit is gone at once.
            raise TransactionManagementError("FOR UPDATE cannot be used outside of a transaction.")
        if self._built is None:
            self._built = self._build()
        return self._built[0]

    def _rows(self, params: Sequence[Any], *, many: bool) -> list[tuple]:
        sql = self.sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if many:
                return cursor.fetchall()
            row = cursor.fetchone()
            return [row] if row is not None else []

    def instance(self, row: tuple) -> Model:
        _, main, joined = self._built
        end = len(main.attnames)
        instance = main.instance(row[:end])
        if joined is not None:
            related = None
            if getattr(instance, self._key_attname) is not None:
                related = joined.instance(row[end : end + len(joined.attnames)])
            setattr(instance, self.related, related)
            end += len(joined.attnames)
        for name, value in zip(self.annotations, row[end:], strict=True):
            setattr(instance, name, value)
        return instance


def select_together(*reads: tuple[PrebuiltSelect, Sequence[Any]]) -> list[list[Model]]:
    """Runs each (select, params) in one round trip, in order (as `Writes` sends its
    statements); returns each one's instances."""
    sqls = [select.sql() for select, _ in reads]
    if _server_side_binding():
        return [select.all(params) for select, params in reads]
    results = []
    with connection.cursor() as cursor:
        cursor.execute(";\n".join(sqls), [param for _, params in reads for param in params])
        for index, (select, _) in enumerate(reads):
            if index:
                cursor.nextset()
            results.append([select.instance(row) for row in cursor.fetchall()])
    return results


def _server_side_binding() -> bool:
    """Whether the cursors bind parameters on the server, which allows one statement per
    `execute` only (Django's PostgreSQL backend binds on the client by default)."""
    return bool(connection.settings_dict["OPTIONS"].get("server_side_binding"))


class Statement(NamedTuple):
    sql: str
    params: list[Any]


def _prepared(field: Field, instance: Model, *, add: bool) -> Any:
    """`field`'s value of `instance` as the ORM saves it (auto_now, adaptation)."""
    return field.get_db_prep_save(field.pre_save(instance, add), connection)


def _plain_fields(model: type[Model], fields: Sequence[Field]) -> list[Field]:
    """`fields`, each written as a plain `%s` parameter: a field the ORM writes otherwise
    (a placeholder of its own, a database default) is refused, not written wrong."""
    for field in fields:
        if hasattr(field, "get_placeholder") or field.has_db_default():
            raise ValueError(f"{model.__name__}.{field.name} is not written as a plain value.")
    return list(fields)


class PrebuiltInsert:
    """`INSERT INTO <model's table> (<fields>) VALUES (...), ...` for instances, with no
    RETURNING (their ids stay unset): for rows nobody reads back. `fields` are the
    model's concrete fields but the auto-incremented primary key."""

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        self._fields: list[Field] | None = None

    def statement(self, instances: Sequence[Model]) -> Statement:
        if not instances:
            raise ValueError("An INSERT needs at least one row.")
        if self._fields is None:
            meta = self.model._meta
            if not isinstance(meta.pk, AutoFieldMixin):
                raise ValueError(
                    f"{self.model.__name__}: its primary key is not made by the database."
                )
            self._fields = _plain_fields(
                self.model, [f for f in meta.concrete_fields if f is not meta.pk]
            )
        quote = connection.ops.quote_name
        columns = ", ".join(quote(field.column) for field in self._fields)
        row = "(" + ", ".join(["%s"] * len(self._fields)) + ")"
        return Statement(
            f"INSERT INTO {table(self.model)} ({columns}) VALUES "
            + ", ".join([row] * len(instances)),
            [_prepared(field, obj, add=True) for obj in instances for field in self._fields],
        )


class PrebuiltUpdate:
    """`UPDATE <model's table> SET <fields> WHERE <primary key> = %s` for one instance,
    as `save(update_fields=fields)` writes it (with no signals and no row count: for a
    row the transaction holds locked)."""

    def __init__(self, model: type[Model], fields: Sequence[str]) -> None:
        self.model = model
        self.names = list(fields)
        self._built: tuple[str, list[Field]] | None = None

    def statement(self, instance: Model) -> Statement:
        if self._built is None:
            quote = connection.ops.quote_name
            meta = self.model._meta
            fields = _plain_fields(self.model, [meta.get_field(name) for name in self.names])
            assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
            sql = f"UPDATE {table(self.model)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
            self._built = (sql, fields)
        sql, fields = self._built
        return Statement(sql, [*(_prepared(f, instance, add=False) for f in fields), instance.pk])


class Writes:
    """Statements queued to run together, in order, in one round trip (`run`): one
    `execute` carries them all (`_server_side_binding` says when it cannot). In a
    transaction, a failing statement fails `run` and the transaction with it."""

    def __init__(self) -> None:
        self.statements: list[Statement] = []

    def add(self, statement: Statement) -> None:
        self.statements.append(statement)

    def run(self) -> None:
        statements, self.statements = self.statements, []
        if not statements:
            return
        with connection.cursor() as cursor:
            if _server_side_binding():
                for sql, params in statements:
                    cursor.execute(sql, params)
                return
            cursor.execute(
                ";\n".join(sql for sql, _ in statements),
                [param for _, params in statements for param in params],
            )
