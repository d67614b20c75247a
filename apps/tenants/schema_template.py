"""A new business's schema, copied from a migrated template instead of migrated from scratch.

Running every tenant migration for each new business costs 0.6-0.8 s here, and 1.2-1.8 s once 1,000
businesses exist: Django re-renders its migration state after each operation, and DDL gets slower as
the catalog grows. Copying a schema that was migrated once costs a fraction of that (decision 0008).

The template is a schema named after the tenant migrations on disk (``xv_template_<hash>``), built by
the real migrations the first time it is needed, under an advisory lock. A new migration changes the
hash, so the next business gets a fresh template; stale templates are dropped. The copy is one
transaction (PostgreSQL DDL is transactional): a failure leaves no half-made schema, and the caller
falls back to running the migrations.

What is copied: every table with ``LIKE ... INCLUDING ALL`` (columns with their exact types such as
``vector(384)``, defaults, identity columns, checks, indexes including HNSW and GIN), the rows the
migrations wrote (``django_migrations``), identity positions, foreign keys, the schema's functions and
its triggers (the append-only guards of the fact history). A schema holding anything else (views,
free-standing sequences) is not copied: the caller migrates instead. tests/tenants/test_schema_template.py
compares the catalog of a copied schema with a migrated one.
"""

from __future__ import annotations

# ruff: noqa: S608 - identifiers in this SQL are schema names we generate and names read from the catalog
import hashlib
import logging
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.db.migrations.loader import MigrationLoader
from django_tenants.utils import get_tenant_database_alias, schema_exists

from apps.tenants.db import use_public_schema

logger = logging.getLogger(__name__)

TEMPLATE_PREFIX = "xv_template_"
_LOCK_KEY = 7_331_001  # pg_advisory_lock key: one template build at a time across processes


class TemplateUnsupported(RuntimeError):
    """The template holds objects this copy does not reproduce; migrate instead."""


@lru_cache(maxsize=1)
def template_name() -> str:
    """The template schema for the tenant migrations on disk (computed once per process)."""
    tenant_apps = {name.rsplit(".", 1)[-1] for name in settings.TENANT_APPS}
    loader = MigrationLoader(None, ignore_no_migrations=True, load=True)
    keys = sorted(f"{app}.{name}" for app, name in loader.disk_migrations if app in tenant_apps)
    digest = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:12]
    return f"{TEMPLATE_PREFIX}{digest}"


def _schemas_like(prefix: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", [prefix + "%"])
        return [row[0] for row in cursor.fetchall()]


def template_ensure() -> str:
    """The template schema, migrated; built now if this set of migrations has none yet."""
    name = template_name()
    if _template_ready(name):
        return name
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [_LOCK_KEY])
    try:
        if not _template_ready(name):
            with connection.cursor() as cursor:
                cursor.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')  # a build killed half-way
                for stale in _schemas_like(TEMPLATE_PREFIX):
                    if stale != name:
                        cursor.execute(f'DROP SCHEMA "{stale}" CASCADE')
                cursor.execute(f'CREATE SCHEMA "{name}"')
            call_command("migrate_schemas", tenant=True, schema_name=name, interactive=False, verbosity=0)
            use_public_schema()
            _park_outward_foreign_keys(name)
            with connection.cursor() as cursor:
                cursor.execute(f"COMMENT ON SCHEMA \"{name}\" IS 'xorventa template: complete'")
            logger.info("built tenant schema template %s", name)
    finally:
        use_public_schema()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
    return name


_PARKED = "xv_template_foreign_keys"


def _park_outward_foreign_keys(name: str) -> None:
    """Move the template's keys into public tables (the admin log's user) into a side table.

    A template that references public rows would block TRUNCATE of those tables (Django's test flush)
    and hold locks for a schema nobody uses; the copies get the keys back from the side table.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'SET LOCAL search_path = "{name}", public')
        cursor.execute(
            "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
            "JOIN pg_class target ON target.oid = c.confrelid "
            "WHERE c.connamespace = %s::regnamespace AND c.contype = 'f' "
            "AND target.relnamespace <> c.connamespace ORDER BY 1, 2",
            [name],
        )
        outward = cursor.fetchall()
        cursor.execute(
            f'CREATE TABLE "{name}".{_PARKED} (table_name text, constraint_name text, definition text)'
        )
        for table, constraint, definition in outward:
            cursor.execute(
                f'INSERT INTO "{name}".{_PARKED} VALUES (%s, %s, %s)', [table, constraint, definition]
            )
            cursor.execute(f'ALTER TABLE "{name}".{table} DROP CONSTRAINT "{constraint}"')


def _template_ready(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s", [name]
        )
        row = cursor.fetchone()
    return bool(row and row[0] == "xorventa template: complete")


_FUNCTIONS_SQL = (
    "SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = %s::regnamespace "
    "ORDER BY p.proname"
)
_CONSTRAINTS_SQL = (
    "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
    "WHERE c.connamespace = %s::regnamespace AND c.contype::text = ANY(%s) ORDER BY 1, 2"
)
_INDEXES_SQL = (  # indexes that no constraint owns (those come back with their constraint)
    "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "WHERE c.relnamespace = %s::regnamespace "
    "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY c.relname"
)
_TRIGGERS_SQL = (
    "SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
    "WHERE c.relnamespace = %s::regnamespace AND NOT t.tgisinternal ORDER BY c.relname, t.tgname"
)
_IDENTITIES_SQL = (
    "SELECT table_name, column_name FROM information_schema.columns "
    "WHERE table_schema = %s AND is_identity = 'YES'"
)


def _rows(cursor: Any, sql: str, *params: object) -> list[tuple[Any, ...]]:
    cursor.execute(sql, list(params))
    return list(cursor.fetchall())


def schema_copy(template: str, new: str) -> None:
    """Create schema ``new`` as a copy of ``template``, in one transaction."""
    if schema_exists(new):
        raise ValueError(f"Schema {new} already exists.")
    with transaction.atomic(using=get_tenant_database_alias()), connection.cursor() as cursor:
        cursor.execute(f'SET LOCAL search_path = "{template}", public')
        cursor.execute(
            "SELECT c.relname, c.relkind FROM pg_class c WHERE c.relnamespace = %s::regnamespace "
            "AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') ORDER BY c.relname",
            [template],
        )
        relations = cursor.fetchall()
        tables = [name for name, kind in relations if kind in ("r", "p") and name != _PARKED]
        cursor.execute(
            "SELECT count(*) FROM pg_class s WHERE s.relnamespace = %s::regnamespace AND s.relkind = 'S' "
            "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = s.oid AND d.deptype = 'i')",
            [template],
        )
        free_sequences = cursor.fetchone()[0]
        if any(kind in ("v", "m", "f") for _, kind in relations) or free_sequences:
            raise TemplateUnsupported(f"{template} holds views or free-standing sequences")
        functions = [row[0] for row in _rows(cursor, _FUNCTIONS_SQL, template)]
        foreign_keys = _rows(cursor, _CONSTRAINTS_SQL, template, ["f"])
        foreign_keys += _rows(cursor, f'SELECT * FROM "{template}".{_PARKED} ORDER BY 1, 2')
        # Keys and indexes are replayed by name (LIKE ... INCLUDING INDEXES would rename them, and a
        # later migration that drops or alters one by name would then fail on copied schemas).
        keys = _rows(cursor, _CONSTRAINTS_SQL, template, ["p", "u", "x"])
        indexes = [row[0] for row in _rows(cursor, _INDEXES_SQL, template)]
        triggers = [row[0] for row in _rows(cursor, _TRIGGERS_SQL, template)]
        identities = _rows(cursor, _IDENTITIES_SQL, template)

        # Read with the template first on the search path, so definitions name its tables unqualified;
        # replay with the new schema first, so the same names resolve to the copy.
        cursor.execute(f'CREATE SCHEMA "{new}"')
        cursor.execute(f'SET LOCAL search_path = "{new}", public')
        for definition in functions:
            cursor.execute(definition.replace(f"FUNCTION {template}.", f'FUNCTION "{new}".', 1))
        for table in tables:
            cursor.execute(
                f'CREATE TABLE "{new}"."{table}" (LIKE "{template}"."{table}" INCLUDING ALL EXCLUDING INDEXES)'
            )
            cursor.execute(f'INSERT INTO "{new}"."{table}" SELECT * FROM "{template}"."{table}"')
        for table, constraint, definition in keys:
            cursor.execute(f'ALTER TABLE "{new}".{table} ADD CONSTRAINT "{constraint}" {definition}')
        for definition in indexes:  # pg_get_indexdef always names the table with its schema
            cursor.execute(definition.replace(f" ON {template}.", f' ON "{new}".', 1))
        for table, column in identities:
            cursor.execute(
                f'SELECT setval(pg_get_serial_sequence(%s, %s), coalesce(max("{column}"), 0) + 1, false) '
                f'FROM "{new}"."{table}"',
                [f'"{new}"."{table}"', column],
            )
        for table, constraint, definition in foreign_keys:
            cursor.execute(f'ALTER TABLE "{new}".{table} ADD CONSTRAINT "{constraint}" {definition}')
        for definition in triggers:
            cursor.execute(
                definition.replace(f" ON {template}.", f' ON "{new}".', 1).replace(
                    f"FUNCTION {template}.", f'FUNCTION "{new}".'
                )
            )


def schema_create_from_template(schema_name: str) -> bool:
    """Create ``schema_name`` from the template. False (nothing created) when the copy is not possible."""
    try:
        template = template_ensure()
        schema_copy(template, schema_name)
    except TemplateUnsupported as exc:
        logger.warning("tenant schema template not usable (%s): running migrations", exc)
        return False
    finally:
        use_public_schema()
    return True
