"""Knowledge: topics rendered for a date, facts with their history and sources, the owner's facts and
answers, correcting / retiring / restoring a fact, disagreements and their resolution, subject splits.

Thin adapters: each write calls one service of apps.facts.services with the key named as the actor.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import django_filters
from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api import serializers as out
from apps.api.base import ApiView, input_errors
from apps.facts.models import (
    Disagreement,
    DisagreementStatus,
    Evidence,
    Fact,
    FactEvent,
    FactStatus,
    Topic,
)
from apps.facts.selectors import AUDIENCE_STAFF, AUDIENCE_VISITOR, knowledge_render, topic_history
from apps.facts.services import (
    IngestResult,
    disagreement_resolve,
    disagreement_split,
    fact_restore,
    fact_retire,
    fact_subject_split,
    owner_answer_record,
    owner_fact_add,
)

TAG = ["knowledge"]


class RenderQuery(serializers.Serializer[Any]):
    on = serializers.DateField(required=False, help_text="The date to render for (default: today)")
    audience = serializers.ChoiceField(
        choices=[(AUDIENCE_VISITOR, "Visitors"), (AUDIENCE_STAFF, "Staff (internal facts too)")],
        default=AUDIENCE_VISITOR,
    )


def _render_query(request: Request) -> tuple[date, str]:
    query = RenderQuery(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data.get("on") or timezone.localdate(), query.validated_data["audience"]


def _rendered(topic: Topic, rendered: Any, on: date) -> dict[str, Any]:
    """A topic as the assistant reads it; a topic with nothing live on the date has no lines."""
    facts = rendered.facts if rendered else ()
    return {
        "id": topic.pk,
        "name": topic.name,
        "on": on,
        "text": rendered.text if rendered else "",
        "facts": [
            {**f.__dict__, "sources": [{**s.__dict__, "label": s.label} for s in f.sources]} for f in facts
        ],
    }


def _change(result: IngestResult) -> dict[str, Any]:
    return {
        "added": result.added,
        "retired": result.retired,
        "confirmed": result.confirmed,
        "disagreements": [d.pk for d in result.disagreements],
    }


# The date and audience of a rendering are checked by RenderQuery (a 400 names the parameter).
render_errors = [
    extend_validation_errors(["invalid", "datetime"], field_name="on", methods=["get"]),
    extend_validation_errors(["invalid_choice"], field_name="audience", methods=["get"]),
]


def _with_render_errors(view: Any) -> Any:
    for decorate in render_errors:
        view = decorate(view)
    return view


@_with_render_errors
class TopicList(ApiView):
    queryset = Topic.objects.all()

    @extend_schema(tags=TAG, parameters=[RenderQuery], responses=out.RenderedTopicOut(many=True))
    def get(self, request: Request) -> Response:
        """Every topic as the assistant would present it on the date (empty topics included)."""
        on, audience = _render_query(request)
        page = self.paginate_queryset(self.get_queryset())
        topics = list(page) if page is not None else []
        rendered = {
            t.topic_id: t
            for t in knowledge_render(on=on, topic_ids=[t.pk for t in topics], audience=audience)
        }
        data = [_rendered(t, rendered.get(t.pk), on) for t in topics]
        return self.get_paginated_response(out.RenderedTopicOut(data, many=True).data)


@_with_render_errors
class TopicDetail(ApiView):
    @extend_schema(tags=TAG, parameters=[RenderQuery], responses=out.TopicDetailOut)
    def get(self, request: Request, pk: int) -> Response:
        """One topic on a date: how it renders, all of its facts (live first) and its history."""
        topic = get_object_or_404(Topic, pk=pk)
        on, audience = _render_query(request)
        rendered = knowledge_render(on=on, topic_ids=[topic.pk], audience=audience)
        facts = topic.facts.select_related("topic").order_by("status", "-learned_at", "-id")
        data = {
            "id": topic.pk,
            "name": topic.name,
            "on": on,
            "rendered": _rendered(topic, rendered[0], on) if rendered else None,
            "facts": facts,
            "history": topic_history(topic),
        }
        return Response(out.TopicDetailOut(data).data)


class FactFilter(django_filters.FilterSet):
    topic = django_filters.NumberFilter(field_name="topic_id", help_text="Topic id")
    status = django_filters.ChoiceFilter(choices=FactStatus.choices)
    source_kind = django_filters.CharFilter(help_text="owner_answer, profile, document or website")

    class Meta:
        model = Fact
        fields = ["topic", "status", "source_kind"]


def _fact_detail_queryset() -> QuerySet[Fact]:
    return Fact.objects.select_related("topic").prefetch_related(
        Prefetch("evidence", queryset=Evidence.objects.select_related("source").order_by("added_at", "id")),
        Prefetch("events", queryset=FactEvent.objects.order_by("at", "id")),
        "replaces",
    )


class FactList(ApiView):
    queryset = Fact.objects.select_related("topic")
    filter_backends = [DjangoFilterBackend]
    filterset_class = FactFilter

    @extend_schema(tags=TAG, responses=out.FactOut(many=True))
    def get(self, request: Request) -> Response:
        """Facts, newest first; filter by topic, status or the kind of their first source."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(out.FactOut(page, many=True).data)

    @extend_schema(tags=TAG, request=out.FactIn, responses={201: out.ChangeOut})
    def post(self, request: Request) -> Response:
        """Add a fact as the owner (the highest precedence): a stronger source's value becomes a
        disagreement instead."""
        data = self.valid(out.FactIn)
        with input_errors():
            result = owner_fact_add(**data, actor=self.actor)
        return Response(out.ChangeOut(_change(result)).data, status=status.HTTP_201_CREATED)


class FactDetail(ApiView):
    @extend_schema(tags=TAG, responses=out.FactDetailOut)
    def get(self, request: Request, pk: int) -> Response:
        """One fact with every source that stated it and its whole history."""
        fact = get_object_or_404(_fact_detail_queryset(), pk=pk)
        return Response(out.FactDetailOut(fact).data)


class FactCorrect(ApiView):
    @extend_schema(tags=TAG, request=out.FactCorrectIn, responses={201: out.ChangeOut})
    def post(self, request: Request, pk: int) -> Response:
        """Correct a fact: a new owner fact replaces it (the old wording stays in the history)."""
        fact = get_object_or_404(Fact.objects.select_related("topic"), pk=pk)
        data = self.valid(out.FactCorrectIn)
        with input_errors():
            result = owner_fact_add(
                topic=fact.topic.name,
                aspect=fact.aspect,
                visibility=fact.visibility,
                replaces=[fact],
                actor=self.actor,
                **data,
            )
        return Response(out.ChangeOut(_change(result)).data, status=status.HTTP_201_CREATED)


class FactRetire(ApiView):
    @extend_schema(tags=TAG, request=out.RetireIn, responses=out.FactDetailOut)
    def post(self, request: Request, pk: int) -> Response:
        """Retire a live fact, with the reason (the assistant stops saying it; it can be restored)."""
        fact = get_object_or_404(Fact, pk=pk)
        data = self.valid(out.RetireIn)
        with input_errors():
            fact_retire(fact=fact, reason=data["reason"], actor=self.actor)
        return Response(out.FactDetailOut(_fact_detail_queryset().get(pk=fact.pk)).data)


class FactRestore(ApiView):
    @extend_schema(tags=TAG, request=out.ReasonIn, responses=out.FactDetailOut)
    def post(self, request: Request, pk: int) -> Response:
        """Restore a retired fact; whatever had replaced it is retired."""
        fact = get_object_or_404(Fact, pk=pk)
        data = self.valid(out.ReasonIn)
        with input_errors():
            fact_restore(fact=fact, reason=data["reason"], actor=self.actor)
        return Response(out.FactDetailOut(_fact_detail_queryset().get(pk=fact.pk)).data)


class FactSplit(ApiView):
    @extend_schema(tags=TAG, request=out.RetireIn, responses={201: out.FactDetailOut})
    def post(self, request: Request, pk: int) -> Response:
        """A fact filed under another subject by meaning is about its own: file it under its own topic
        (only when ``can_split``); what it had replaced is restored."""
        fact = get_object_or_404(Fact, pk=pk)
        data = self.valid(out.RetireIn)
        with input_errors():
            split = fact_subject_split(fact=fact, reason=data["reason"], actor=self.actor)
        return Response(
            out.FactDetailOut(_fact_detail_queryset().get(pk=split.pk)).data, status=status.HTTP_201_CREATED
        )


class OwnerAnswer(ApiView):
    @extend_schema(tags=TAG, request=out.OwnerAnswerIn, responses={201: out.ChangeOut})
    def post(self, request: Request) -> Response:
        """The owner's answer to a question, read into facts (it wins over the website and documents)."""
        data = self.valid(out.OwnerAnswerIn)
        with input_errors():
            result = owner_answer_record(**data, actor=self.actor)
        return Response(out.ChangeOut(_change(result)).data, status=status.HTTP_201_CREATED)


class DisagreementFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=DisagreementStatus.choices)

    class Meta:
        model = Disagreement
        fields = ["status"]


def _disagreements() -> QuerySet[Disagreement]:
    return Disagreement.objects.select_related("fact__topic", "source")


class DisagreementList(ApiView):
    queryset = _disagreements()
    filter_backends = [DjangoFilterBackend]
    filterset_class = DisagreementFilter

    @extend_schema(tags=TAG, responses=out.DisagreementOut(many=True))
    def get(self, request: Request) -> Response:
        """Lower-precedence sources contradicting the owner, newest first; filter by status."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(out.DisagreementOut(page, many=True).data)


class DisagreementDetail(ApiView):
    @extend_schema(tags=TAG, responses=out.DisagreementOut)
    def get(self, request: Request, pk: int) -> Response:
        return Response(out.DisagreementOut(get_object_or_404(_disagreements(), pk=pk)).data)


class DisagreementResolve(ApiView):
    @extend_schema(tags=TAG, request=out.ResolveIn, responses=out.DisagreementOut)
    def post(self, request: Request, pk: int) -> Response:
        """Accept (the source's value replaces the owner's fact) or dismiss (the owner's value stands)."""
        disagreement = get_object_or_404(Disagreement, pk=pk)
        data = self.valid(out.ResolveIn)
        with input_errors():
            disagreement_resolve(
                disagreement=disagreement,
                accept=data["decision"] == "accept",
                actor=self.actor,
            )
        return Response(out.DisagreementOut(_disagreements().get(pk=pk)).data)


class DisagreementSplit(ApiView):
    @extend_schema(tags=TAG, request=None, responses=out.DisagreementOut)
    def post(self, request: Request, pk: int) -> Response:
        """The source was matched to the owner's subject by meaning but is about another thing: its
        statement becomes a live fact under its own subject (only when ``can_split``)."""
        disagreement = get_object_or_404(Disagreement, pk=pk)
        with input_errors():
            disagreement_split(disagreement=disagreement, actor=self.actor)
        return Response(out.DisagreementOut(_disagreements().get(pk=pk)).data)
