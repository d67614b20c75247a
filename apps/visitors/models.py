"""Visitor data (tenant schema): contact details with the consent they were given under, and the
business's retention period. The conversations themselves are chat's; this app exports and erases them."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class ContactSource(models.TextChoices):
    LEAD_FORM = "lead_form", "Left in the widget to be told an answer"
    IDENTIFY = "identify", "Passed by the website (Xorventa.identify)"


class VisitorContact(models.Model):
    visitor_id = models.CharField(max_length=64, db_index=True)
    conversation_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    name = models.CharField(max_length=200, blank=True)
    contact = models.CharField(max_length=200, help_text="Email or phone number")
    source = models.CharField(max_length=10, choices=ContactSource.choices)
    consent_text = models.TextField(help_text="What the visitor was told when they gave it")
    consented_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-consented_at", "-id"]

    def __str__(self) -> str:
        return f"{self.contact} ({self.get_source_display()})"


class DataSettings(models.Model):
    """One row per business (pk=1): how long conversations are kept."""

    retention_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Delete conversations this many days after their last message; empty = keep",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "data settings"
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="one_data_settings_row"),
            models.CheckConstraint(
                condition=Q(retention_days__gte=1) | Q(retention_days__isnull=True),
                name="retention_days_positive",
            ),
        ]
