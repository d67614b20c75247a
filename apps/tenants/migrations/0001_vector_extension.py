"""pgvector lives in the public schema, created by a shared app's migration (see docs/architecture.md).

Tenant migrations run with search_path = <tenant>, public, so `vector(384)` resolves in every schema.
A server without pgvector gets a clear message instead of a failure deep in a later migration.
"""

from django.db import migrations

MIN_VERSION = (0, 5)


def create_vector_extension(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
        row = cursor.fetchone()
        if row is None:
            raise RuntimeError(
                "This PostgreSQL server has no pgvector extension. Install pgvector >= 0.5 on it, or unset "
                "DATABASE_URL to use Xorventa's embedded PostgreSQL (which ships pgvector)."
            )
        version = tuple(int(p) for p in row[0].split(".")[:2])
        if version < MIN_VERSION:
            raise RuntimeError(f"pgvector {row[0]} is too old: Xorventa needs >= 0.5 (HNSW indexes).")
        cursor.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [migrations.RunPython(create_vector_extension, migrations.RunPython.noop)]
