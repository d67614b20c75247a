"""The dashboard's answer-feedback figure: visitors' thumbs up and down over the last two weeks."""

from __future__ import annotations

from django import template

from apps.feedback.selectors import FeedbackSummary, feedback_summary

register = template.Library()


@register.simple_tag
def answer_feedback_summary(days: int = 14) -> FeedbackSummary:
    return feedback_summary(days=days)
