from django.apps import AppConfig
from django.core.checks import Tags, register

from apps.tenants.deployment import check_pooler


class TenantsConfig(AppConfig):
    name = "apps.tenants"
    label = "tenants"
    verbose_name = "Resellers and businesses"

    def ready(self) -> None:
        # A pooler in transaction mode mixes businesses' schemas: refuse to run behind one (0016).
        register(check_pooler, Tags.database)
