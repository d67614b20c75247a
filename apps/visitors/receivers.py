"""Visitors listen to gaps: contact details left in the widget are stored with their consent."""

from __future__ import annotations

from typing import Any

from django_tenants.utils import schema_context

from apps.visitors.services import contact_consent_record


def contact_left_record(
    sender: Any, *, schema_name: str, conversation_id: int, contact: str, **kwargs: Any
) -> None:
    with schema_context(schema_name):
        contact_consent_record(
            conversation_id=conversation_id, contact=contact, questions=kwargs.get("questions", 0)
        )
