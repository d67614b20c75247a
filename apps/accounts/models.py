"""People (public schema) and what they may do: memberships with roles, and invitations."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.db import models
from django.db.models import Q
from django.utils import timezone
from rest_framework_api_key.models import AbstractAPIKey


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **extra: Any) -> User:
        if not email:
            raise ValueError("An email address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", False)
        extra.setdefault("is_superuser", False)
        return self._create(email, password, **extra)

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.update(is_staff=True, is_superuser=True)
        return self._create(email, password, **extra)


class User(AbstractUser):
    """A person who signs in: a reseller admin, a business owner or staff, or an operator (is_staff)."""

    username = None  # type: ignore[assignment]
    email = models.EmailField(unique=True)
    digest_emails = models.BooleanField(default=True, help_text="Daily digest of new gaps and disagreements.")

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []  # type: ignore[misc]
    objects = UserManager()  # type: ignore[misc,assignment]

    def __str__(self) -> str:
        return self.email


class Role(models.TextChoices):
    RESELLER_ADMIN = "reseller_admin", "Reseller admin"
    OWNER = "owner", "Business owner"
    STAFF = "staff", "Business staff"


class Membership(models.Model):
    """What one person may do where: a reseller admin of a reseller, or owner/staff of a business."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    reseller = models.ForeignKey("tenants.Reseller", null=True, blank=True, on_delete=models.CASCADE)
    business = models.ForeignKey("tenants.Business", null=True, blank=True, on_delete=models.CASCADE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="membership_scope_matches_role",
                condition=(
                    Q(role="reseller_admin", reseller__isnull=False, business__isnull=True)
                    | Q(role__in=["owner", "staff"], business__isnull=False, reseller__isnull=True)
                ),
            ),
            models.UniqueConstraint(fields=["user", "business"], name="one_membership_per_business"),
            models.UniqueConstraint(fields=["user", "reseller"], name="one_membership_per_reseller"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.business or self.reseller}"


def _invitation_token() -> str:
    return secrets.token_urlsafe(24)


def _invitation_expiry() -> Any:
    return timezone.now() + timedelta(days=14)


class Invitation(models.Model):
    """An emailed link that becomes a Membership when the person sets a password."""

    email = models.EmailField()
    role = models.CharField(max_length=20, choices=Role.choices)
    reseller = models.ForeignKey("tenants.Reseller", null=True, blank=True, on_delete=models.CASCADE)
    business = models.ForeignKey("tenants.Business", null=True, blank=True, on_delete=models.CASCADE)
    token = models.CharField(max_length=64, unique=True, default=_invitation_token)
    invited_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(default=_invitation_expiry)
    accepted_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Invitation of {self.email} as {self.role}"

    @property
    def is_open(self) -> bool:
        return self.accepted_at is None and self.expires_at > timezone.now()


# ----------------------------------------------------------------------------------------------
# API keys (issue 21): the REST API's credentials. djangorestframework-api-key generates them, keeps
# only a SHA-512 hash (the full key is shown once, when created) and looks them up by their prefix.


class ApiAccess(models.TextChoices):
    READ = "read", "Read only"
    WRITE = "write", "Read and write"


class ApiKey(AbstractAPIKey):
    """A key for one business, or for every business of one reseller (and the reseller's own API).

    Exactly one of ``business`` / ``reseller`` is set. Revoking cannot be undone (the library refuses
    to save a key un-revoked); every request made with a key is logged in ``ApiKeyUse``.
    """

    business = models.ForeignKey(
        "tenants.Business", null=True, blank=True, on_delete=models.CASCADE, related_name="api_keys"
    )
    reseller = models.ForeignKey(
        "tenants.Reseller", null=True, blank=True, on_delete=models.CASCADE, related_name="api_keys"
    )
    access = models.CharField(max_length=10, choices=ApiAccess.choices, default=ApiAccess.READ)
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractAPIKey.Meta):
        constraints = [
            models.CheckConstraint(
                name="api_key_one_scope",
                condition=Q(business__isnull=False, reseller__isnull=True)
                | Q(business__isnull=True, reseller__isnull=False),
            )
        ]

    @property
    def can_write(self) -> bool:
        return self.access == ApiAccess.WRITE


class ApiKeyUse(models.Model):
    """One request made with an API key: who, where, what, and the answer's status."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="uses")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    business_slug = models.CharField(max_length=42, blank=True, help_text="The business addressed, if any")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=300)
    status = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["key", "-at"])]
