"""Reads of answer feedback for the portal: per reply, and the dashboard's summary."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Q
from django.utils import timezone

from apps.feedback.models import AnswerFeedback, Rating


def feedback_by_message(message_ids: Iterable[int]) -> dict[int, AnswerFeedback]:
    return {f.message_id: f for f in AnswerFeedback.objects.filter(message_id__in=list(message_ids))}


@dataclass(frozen=True)
class FeedbackSummary:
    days: int
    up: int
    down: int
    recent_down: list[AnswerFeedback]

    @property
    def helpful_share(self) -> float | None:
        total = self.up + self.down
        return self.up / total if total else None


def feedback_summary(*, days: int = 14, recent: int = 5) -> FeedbackSummary:
    since = timezone.now() - timedelta(days=days)
    qs = AnswerFeedback.objects.filter(updated_at__gte=since)
    counts = qs.aggregate(
        up=Count("id", filter=Q(rating=Rating.UP)), down=Count("id", filter=Q(rating=Rating.DOWN))
    )
    downs = list(qs.filter(rating=Rating.DOWN).select_related("message").order_by("-updated_at")[:recent])
    return FeedbackSummary(days=days, up=counts["up"], down=counts["down"], recent_down=downs)
