"""What the visitor-data layer announces; higher layers (webhooks) listen, visitors never imports them.

Both are sent inside the transaction that made the change, with the schema it was made in.
"""

from __future__ import annotations

from django.dispatch import Signal

# kwargs: schema_name (str), contact_id (int), lead (dict: the contact as the webhook sends it)
lead_captured = Signal()

# kwargs: schema_name (str), conversation_ids (list[int]), visitor_ids (list[str])
visitor_erased = Signal()
