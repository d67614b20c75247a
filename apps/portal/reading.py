"""What the owner is told after saving an answer, when the language model could not read it.

An owner's answer is stored and live at once even while the model is down (decision 0020): the
built-in reader's records stand in and the worker has the model read it again. A model outage is
therefore never an error page; the owner hears that the answer is saved and will be read again, or
that no detail could be read in it, so that a sentence the readers cannot use does not pass silently.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest

from apps.facts.selectors import facts_awaiting_model
from apps.facts.services import IngestResult

SAVED_READ_AGAIN = (
    "Answer saved, and the assistant uses it now. The language model could not read it just now, so the "
    "built-in reader did; it will be read again when the model is back."
)
SAVED_UNREAD = (
    "Answer saved, but we could not read a detail in it. If the assistant should use it, say it as a "
    "plain sentence (for example: 'Yes, we deliver within 5 miles for $5.')."
)


def answer_saved(
    request: HttpRequest, saved: str, *, result: IngestResult | None = None, fact_ids: list[int] | None = None
) -> None:
    """The message after an owner answer: ``result`` from owner_answer_record, or a gap's fact ids."""
    if result is not None:
        read_again = bool(result.rereading)
        unread = bool(result.unread) and not (result.added or result.confirmed or result.disagreements)
    else:
        ids = fact_ids or []
        read_again, unread = facts_awaiting_model(ids), not ids
    if read_again:
        messages.warning(request, SAVED_READ_AGAIN)
    elif unread:
        messages.warning(request, SAVED_UNREAD)
    else:
        messages.success(request, saved)
