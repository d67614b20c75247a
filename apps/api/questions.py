"""Questions for the owner (knowledge gaps): list, read, answer, dismiss, merge two into one."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api import serializers as out
from apps.api.base import ApiView, input_errors
from apps.gaps.merging import gap_merge
from apps.gaps.models import GapAsk, GapStatus, GapTicket
from apps.gaps.services import gap_answer, gap_dismiss
from apps.portal.selectors import gap_wordings

TAG = ["questions"]


class QuestionFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GapStatus.choices)

    class Meta:
        model = GapTicket
        fields = ["status"]


def _detail(ticket: GapTicket) -> dict[str, Any]:
    ticket = (
        GapTicket.objects.defer("embedding")
        .prefetch_related(Prefetch("asks", queryset=GapAsk.objects.order_by("-asked_at")))
        .get(pk=ticket.pk)
    )
    data = dict(out.QuestionOut(ticket).data)
    data["wordings"] = gap_wordings(ticket)
    data["retrieval_log"] = ticket.retrieval_log
    return data


class QuestionList(ApiView):
    queryset = GapTicket.objects.defer("embedding", "retrieval_log")
    filter_backends = [DjangoFilterBackend]
    filterset_class = QuestionFilter

    @extend_schema(tags=TAG, responses=out.QuestionOut(many=True))
    def get(self, request: Request) -> Response:
        """Questions visitors asked that the knowledge could not answer, newest first."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(out.QuestionOut(page, many=True).data)


class QuestionDetail(ApiView):
    @extend_schema(tags=TAG, responses=out.QuestionDetailOut)
    def get(self, request: Request, pk: int) -> Response:
        return Response(_detail(get_object_or_404(GapTicket.objects.defer("embedding"), pk=pk)))


class QuestionAnswer(ApiView):
    @extend_schema(tags=TAG, request=out.AnswerIn, responses=out.QuestionDetailOut)
    def post(self, request: Request, pk: int) -> Response:
        """Answer: it becomes the owner's facts, and visitors who left contact details are told."""
        ticket = get_object_or_404(GapTicket.objects.defer("embedding"), pk=pk)
        data = self.valid(out.AnswerIn)
        with input_errors():
            ticket = gap_answer(ticket=ticket, answer=data["answer"], actor=self.actor)
        return Response(_detail(ticket))


class QuestionDismiss(ApiView):
    @extend_schema(tags=TAG, request=out.DismissIn, responses=out.QuestionDetailOut)
    def post(self, request: Request, pk: int) -> Response:
        """Dismiss (spam, off-topic): similar questions stop creating questions."""
        ticket = get_object_or_404(GapTicket.objects.defer("embedding"), pk=pk, status=GapStatus.OPEN)
        data = self.valid(out.DismissIn)
        reason = data["reason"] or "no business value"
        return Response(_detail(gap_dismiss(ticket=ticket, reason=reason, actor=self.actor)))


class MergeIn(serializers.Serializer[Any]):
    into = serializers.IntegerField(min_value=1, help_text="The open question that keeps the asks")


class QuestionMerge(ApiView):
    @extend_schema(tags=TAG, request=MergeIn, responses=out.QuestionDetailOut)
    def post(self, request: Request, pk: int) -> Response:
        """Merge this open question into another: its asks move there and it is deleted."""
        ticket = get_object_or_404(GapTicket.objects.defer("embedding"), pk=pk)
        data = self.valid(MergeIn)
        into = GapTicket.objects.defer("embedding").filter(pk=data["into"]).first()
        if into is None:
            raise serializers.ValidationError({"into": ["No such question."]})
        with input_errors():
            merged = gap_merge(ticket=ticket, into=into, actor=self.actor)
        return Response(_detail(merged))
