"""Public-schema records of who the tenants are: resellers (agencies) and their businesses."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django_tenants.models import DomainMixin, TenantMixin
from django_tenants.utils import schema_exists

from apps.tenants.schema_template import schema_create_from_template

SLUG_VALIDATOR = RegexValidator(
    r"^[a-z][a-z0-9-]{1,40}[a-z0-9]$",
    "Use 3-42 lowercase letters, digits and hyphens, starting with a letter.",
)
RESERVED_SLUGS = frozenset({"www", "admin", "api", "static", "media", "public", "t", "ws", "app", "mail"})


def new_public_key() -> str:
    return "pk_" + secrets.token_urlsafe(18)


class Reseller(models.Model):
    """An agency that runs many businesses on this install; white-label settings live here."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=42, unique=True, validators=[SLUG_VALIDATOR])
    product_name = models.CharField(max_length=60, default="Xorventa")
    logo_url = models.CharField(max_length=300, blank=True)
    primary_color = models.CharField(max_length=7, default="#2255aa")
    show_powered_by = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Business(TenantMixin):
    """A tenant: one business, one PostgreSQL schema holding all of its knowledge and conversations."""

    reseller = models.ForeignKey(Reseller, on_delete=models.PROTECT, related_name="businesses")
    name = models.CharField(max_length=120)
    slug = models.CharField(max_length=42, unique=True, validators=[SLUG_VALIDATOR])
    # The widget's public key: safe to publish in a <script> tag; resolves the business for the
    # websocket and the HTTP chat API (a public-schema lookup).
    public_key = models.CharField(max_length=40, unique=True, default=new_public_key)
    created_at = models.DateTimeField(auto_now_add=True)
    is_active = models.BooleanField(default=True)

    auto_create_schema = True
    auto_drop_schema = True  # only reached by delete(force_drop=True): the throwaway businesses of tools

    class Meta:
        verbose_name_plural = "businesses"

    def __str__(self) -> str:
        return self.name

    def create_schema(
        self, check_if_exists: bool = False, sync_schema: bool = True, verbosity: int = 1
    ) -> bool:
        """Copy the migrated template schema when enabled (decision 0008), else run the migrations."""
        if check_if_exists and schema_exists(self.schema_name):
            return False
        if (
            sync_schema
            and settings.XORVENTA_TENANT_TEMPLATE
            and schema_create_from_template(self.schema_name)
        ):
            return True
        return bool(super().create_schema(check_if_exists, sync_schema, verbosity))


class Domain(DomainMixin):
    """A host name that routes to a business (e.g. sunny.localhost or sunny.example.com)."""
