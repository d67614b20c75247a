"""The fact guard (migration 0002) also keeps ``stand_in`` immutable: a stand-in is superseded by a new
fact and retired with a reason (decision 0020), never turned into a model's fact in place."""

from django.db import migrations

GUARD = """
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
     OR NEW.created_at IS DISTINCT FROM OLD.created_at
     OR NEW.stand_in IS DISTINCT FROM OLD.stand_in THEN
    RAISE EXCEPTION 'fact % cannot be edited in place: add a fact that replaces it', OLD.id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;
"""

# Back to migration 0002's guard (without stand_in).
PREVIOUS = GUARD.replace("\n     OR NEW.stand_in IS DISTINCT FROM OLD.stand_in THEN", " THEN")


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0005_part_reading"),
    ]

    operations = [migrations.RunSQL(GUARD, reverse_sql=PREVIOUS)]
