"""A business schema copied from the template is the schema the migrations make (decision 0008)."""

from __future__ import annotations

# ruff: noqa: S608 - the SQL here reads the catalog of schemas the test itself names
import re

import pytest
from django.core.management import call_command
from django.db import connection

from apps.tenants.schema_template import TEMPLATE_PREFIX, schema_copy, template_ensure, template_name


def catalog(schema: str) -> dict[str, list[tuple]]:
    """Everything a migration can create in a schema, with the schema's own name masked."""
    mask = re.escape(schema)
    queries = {
        "columns": (
            "SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, is_identity, "
            "character_maximum_length FROM information_schema.columns "
            "WHERE table_schema = %s ORDER BY 1, 2"
        ),
        "vector_types": (
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = %s::regnamespace AND a.attnum > 0 "
            "AND NOT a.attisdropped AND c.relkind = 'r' ORDER BY 1, 2"
        ),
        "indexes": (
            "SELECT tablename, indexname, regexp_replace(indexdef, '"
            + mask
            + "', 'S', 'g') FROM pg_indexes WHERE schemaname = %s ORDER BY 1, 2"
        ),
        "constraints": (
            "SELECT conrelid::regclass::text, conname, contype, regexp_replace(pg_get_constraintdef(oid), '"
            + mask
            + "', 'S', 'g') FROM pg_constraint WHERE connamespace = %s::regnamespace ORDER BY 1, 2"
        ),
        "triggers": (
            "SELECT event_object_table, trigger_name, action_timing, event_manipulation, "
            "regexp_replace(action_statement, '" + mask + "', 'S', 'g') FROM information_schema.triggers "
            "WHERE trigger_schema = %s ORDER BY 1, 2, 4"
        ),
        "functions": "SELECT proname, prosrc FROM pg_proc WHERE pronamespace = %s::regnamespace ORDER BY 1",
    }
    found: dict[str, list[tuple]] = {}
    with connection.cursor() as cursor:
        cursor.execute(f'SET search_path = "{schema}", public')
        for name, sql in queries.items():
            cursor.execute(sql, [schema])
            found[name] = [
                tuple(str(v).split(".")[-1] if i == 0 else v for i, v in enumerate(row))
                for row in cursor.fetchall()
            ]
        cursor.execute(f'SELECT app, name FROM "{schema}".django_migrations ORDER BY app, name')
        found["migrations"] = cursor.fetchall()
        cursor.execute("SET search_path = public")
    return found


@pytest.mark.django_db(transaction=True)
def test_a_copied_schema_is_the_migrated_schema():
    template = template_ensure()
    assert template == template_name() and template.startswith(TEMPLATE_PREFIX)
    with connection.cursor() as cursor:
        cursor.execute(
            'DROP SCHEMA IF EXISTS "xv_check_copied" CASCADE; DROP SCHEMA IF EXISTS "xv_check_migrated" CASCADE'
        )
        cursor.execute('CREATE SCHEMA "xv_check_migrated"')
    try:
        call_command(
            "migrate_schemas", tenant=True, schema_name="xv_check_migrated", interactive=False, verbosity=0
        )
        connection.set_schema_to_public()
        schema_copy(template, "xv_check_copied")
        migrated, copied = catalog("xv_check_migrated"), catalog("xv_check_copied")
        for part in migrated:
            assert copied[part] == migrated[part], part
        assert ("retrieval_piece", "embedding", "vector(384)") in copied["vector_types"]
        assert any(name == "piece_embedding_hnsw" for _, name, _ in copied["indexes"])
        assert len(copied["triggers"]) >= 5 and len(copied["migrations"]) >= 5
    finally:
        connection.set_schema_to_public()
        with connection.cursor() as cursor:
            cursor.execute(
                'DROP SCHEMA IF EXISTS "xv_check_copied" CASCADE; DROP SCHEMA IF EXISTS "xv_check_migrated" CASCADE'
            )


@pytest.mark.django_db(transaction=True)
def test_a_copied_schema_refuses_fact_history_edits_and_counts_ids_afresh(make_business):
    from django.db import DatabaseError, transaction
    from django_tenants.utils import tenant_context

    from apps.facts.models import Fact
    from apps.facts.services import owner_fact_add

    biz = make_business("copied", "Copied Bakery")
    with tenant_context(biz):
        first = owner_fact_add(topic="Hours", statement="Open daily from 8 AM.").added[0]
        second = owner_fact_add(topic="Parking", statement="Parking is behind the shop.").added[0]
        assert second.pk == first.pk + 1
        with pytest.raises(DatabaseError), transaction.atomic():
            Fact.objects.filter(pk=first.pk).delete()
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("TRUNCATE facts_factevent")
