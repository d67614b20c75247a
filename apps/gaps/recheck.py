"""Questions for the owner close themselves when the knowledge comes to answer them.

The owner often answers a question another way than on the Questions page: a fact typed on the
Knowledge page, a document uploaded, the website re-read. Facts announce every change by signal
(``topics_changed``); gaps listen and, once the change has committed, re-check each open question in
the worker: a question whose search now finds, with the confidence that would not have recorded it, a
fact learned after it was last asked, is closed as covered, with a note naming that fact.

Gaps sit above retrieval, so they search as a visitor's turn does (the same thresholds); facts never
import gaps.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.facts.selectors import AUDIENCE_VISITOR
from apps.gaps.models import GapStatus, GapTicket
from apps.retrieval.search import retrieve
from apps.tenants.tasks import enqueue_for_business

logger = logging.getLogger(__name__)

RECHECK_LIMIT = 200  # open questions re-checked per change, most asked first


def recheck_on_change(sender: Any, *, schema_name: str, topic_ids: frozenset[int], **kwargs: Any) -> None:
    """topics_changed receiver: re-check the business's open questions once the change commits (the
    retrieval index is updated inside that transaction, so the worker searches the new knowledge)."""
    if not GapTicket.objects.filter(status=GapStatus.OPEN).exists():
        return
    enqueue_for_business(
        schema_name, "apps.gaps.recheck.gaps_recheck", task_name=f"gaps-recheck:{schema_name}"
    )


@dataclass(frozen=True)
class Coverage:
    fact_ids: list[int]
    note: str


def gap_coverage(ticket: GapTicket) -> Coverage | None:
    """What now answers ``ticket``, or None: the search is confident (no gap would be recorded) and its
    best topic holds a fact learned after the question was last asked."""
    result = retrieve(ticket.question, on=timezone.localdate(), audience=AUDIENCE_VISITOR)
    if not result.context or result.decisions.get("record_gap") or result.decisions.get("ask_owner"):
        return None
    best = result.context[0]
    newer = [f for f in best.facts if f.learned_at > ticket.last_asked_at]
    if not newer:
        return None
    quoted = "; ".join(f"“{f.statement}”" for f in newer[:2])
    note = f"The knowledge now answers it ({best.name}: {quoted}), found with confidence {result.confidence:.2f}."
    return Coverage(fact_ids=[f.id for f in newer], note=note)


def gaps_recheck() -> int:
    """Close the open questions the knowledge now answers (current schema). Returns how many closed."""
    closed = 0
    tickets = GapTicket.objects.filter(status=GapStatus.OPEN).defer("embedding")
    for ticket in tickets.order_by("-asked_count", "-last_asked_at")[:RECHECK_LIMIT]:
        coverage = gap_coverage(ticket)
        if coverage is not None and gap_cover(ticket=ticket, coverage=coverage):
            closed += 1
    if closed:
        logger.info("%d open question(s) closed: the knowledge now answers them", closed)
    return closed


@transaction.atomic
def gap_cover(*, ticket: GapTicket, coverage: Coverage) -> bool:
    """Close one open question as covered by the knowledge; False if it was closed meanwhile."""
    locked = GapTicket.objects.select_for_update().defer("embedding").get(pk=ticket.pk)
    if locked.status != GapStatus.OPEN:
        return False
    locked.status = GapStatus.COVERED
    locked.closed_note = coverage.note[:1000]
    locked.fact_ids = coverage.fact_ids
    locked.answered_at = timezone.now()
    locked.save(update_fields=["status", "closed_note", "fact_ids", "answered_at"])
    return True
