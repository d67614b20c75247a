"""django-tenants' PostgreSQL backend, plus the embedded server started on first connection.

Starting the server lazily (not when settings are imported) keeps ``manage.py check``, linting and
imports free of a database, and lets the test suite point the same settings at a throwaway server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django_tenants.postgresql_backend.base import DatabaseWrapper as TenantDatabaseWrapper

from apps.tenants.embedded_db import ensure_server


class DatabaseWrapper(TenantDatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        data_dir = self.settings_dict.get("EMBEDDED_DATA_DIR")
        if data_dir and not self.settings_dict.get("HOST"):
            # NAME is the test database during tests; the server-level database to create is the
            # real one, pytest-django creates the test database itself.
            database = self.settings_dict.get("EMBEDDED_DATABASE") or self.settings_dict["NAME"]
            self.settings_dict["HOST"] = ensure_server(Path(data_dir), database=database)
        params = super().get_connection_params()
        # HNSW's candidate list per query: pgvector's default of 40 finds 73% of the true top 10 at
        # 100,000 pieces, 100 finds 85% for ~1 ms more (docs/benchmarks.md, retrieve).
        ef_search = int(getattr(settings, "XORVENTA_HNSW_EF_SEARCH", 0) or 0)
        if ef_search > 0:
            params["options"] = f"{params.get('options', '')} -c hnsw.ef_search={ef_search}".strip()
        return params
