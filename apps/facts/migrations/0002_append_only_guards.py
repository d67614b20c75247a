"""Nothing is deleted: enforce it below the ORM.

- facts_fact: no DELETE; UPDATE may only change status and the retirement fields (retire/restore);
  the statement, topic, aspect, value, dates, origin and question are immutable.
- facts_factevent (the history): no UPDATE, no DELETE.
- sources, versions, parts, evidence, disagreements: no DELETE.
- TRUNCATE is refused on all of them (row triggers do not fire on TRUNCATE, so it has its own).
The functions are created in the business's schema (tenant migrations run with search_path = tenant).
"""

from django.db import migrations

GUARDED_NO_DELETE = [
    "facts_source",
    "facts_sourceversion",
    "facts_sourcepart",
    "facts_evidence",
    "facts_disagreement",
    "facts_topic",
]
ALL_TABLES = [*GUARDED_NO_DELETE, "facts_fact", "facts_factevent", "facts_fact_replaces"]

FORWARD = [
    """
    CREATE OR REPLACE FUNCTION xv_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'knowledge history cannot be truncated (%): nothing is ever deleted', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION xv_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'rows of % are never deleted: retire them instead', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION xv_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'rows of % are append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION xv_fact_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.statement IS DISTINCT FROM OLD.statement
         OR NEW.topic_id IS DISTINCT FROM OLD.topic_id
         OR NEW.aspect IS DISTINCT FROM OLD.aspect
         OR NEW.value IS DISTINCT FROM OLD.value
         OR NEW.learned_at IS DISTINCT FROM OLD.learned_at
         OR NEW.valid_from IS DISTINCT FROM OLD.valid_from
         OR NEW.valid_to IS DISTINCT FROM OLD.valid_to
         OR NEW.source_kind IS DISTINCT FROM OLD.source_kind
         OR NEW.origin_id IS DISTINCT FROM OLD.origin_id
         OR NEW.question IS DISTINCT FROM OLD.question
         OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'fact % cannot be edited in place: add a fact that replaces it', OLD.id
          USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END $$;
    """,
    "CREATE TRIGGER xv_fact_guard BEFORE UPDATE ON facts_fact FOR EACH ROW EXECUTE FUNCTION xv_fact_guard()",
    "CREATE TRIGGER xv_no_delete BEFORE DELETE ON facts_fact FOR EACH ROW EXECUTE FUNCTION xv_refuse_delete()",
    "CREATE TRIGGER xv_no_update BEFORE UPDATE ON facts_factevent FOR EACH ROW EXECUTE FUNCTION xv_refuse_update()",
    "CREATE TRIGGER xv_no_delete BEFORE DELETE ON facts_factevent FOR EACH ROW EXECUTE FUNCTION xv_refuse_delete()",
    "CREATE TRIGGER xv_no_delete BEFORE DELETE ON facts_fact_replaces FOR EACH ROW EXECUTE FUNCTION xv_refuse_delete()",
    *[
        f"CREATE TRIGGER xv_no_delete BEFORE DELETE ON {table} FOR EACH ROW EXECUTE FUNCTION xv_refuse_delete()"
        for table in GUARDED_NO_DELETE
    ],
    *[
        f"CREATE TRIGGER xv_no_truncate BEFORE TRUNCATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION xv_refuse_truncate()"
        for table in ALL_TABLES
    ],
]

BACKWARD = [
    *[f"DROP TRIGGER IF EXISTS xv_no_truncate ON {table}" for table in ALL_TABLES],
    *[f"DROP TRIGGER IF EXISTS xv_no_delete ON {table}" for table in ALL_TABLES],
    "DROP TRIGGER IF EXISTS xv_no_update ON facts_factevent",
    "DROP TRIGGER IF EXISTS xv_fact_guard ON facts_fact",
    "DROP FUNCTION IF EXISTS xv_fact_guard()",
    "DROP FUNCTION IF EXISTS xv_refuse_update()",
    "DROP FUNCTION IF EXISTS xv_refuse_delete()",
    "DROP FUNCTION IF EXISTS xv_refuse_truncate()",
]


class Migration(migrations.Migration):
    dependencies = [("facts", "0001_initial")]
    operations = [migrations.RunSQL(sql=FORWARD, reverse_sql=BACKWARD)]
