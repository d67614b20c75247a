"""The owner splits a fact that the rules filed under another subject by meaning (apps.facts.subjects).

Its own module so the knowledge views' file stays as it is; it uses the same access gate and the same
way back to the topic page as the other fact actions (apps.portal.pages)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from apps.facts.models import Disagreement, Fact
from apps.facts.services import KnowledgeInputError, disagreement_split, fact_subject_split
from apps.portal import forms
from apps.portal.pages import actor_of, back_to_topic, portal_page


@require_POST
@portal_page()
def fact_split_view(request: HttpRequest, pk: int) -> HttpResponse:
    fact = get_object_or_404(Fact.objects.select_related("topic"), pk=pk)
    form = forms.RetireForm(request.POST)  # one required reason, as for retiring
    if not form.is_valid():
        messages.error(request, "Say why these are two different things.")
        return back_to_topic(fact, request)
    try:
        split = fact_subject_split(fact=fact, reason=form.cleaned_data["reason"], actor=actor_of(request))
    except KnowledgeInputError as exc:
        messages.error(request, str(exc))
        return back_to_topic(fact, request)
    messages.success(
        request, f'Split: "{split.topic.name}" is its own subject again; what it had replaced is back.'
    )
    return back_to_topic(split, request)


@require_POST
@portal_page()
def disagreement_split_view(request: HttpRequest, pk: int) -> HttpResponse:
    disagreement = get_object_or_404(Disagreement, pk=pk)
    try:
        fact = disagreement_split(disagreement=disagreement, actor=actor_of(request))
    except KnowledgeInputError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f'Split: "{fact.statement}" is kept as its own subject, and yours stands.')
    return redirect("portal:knowledge_disagreements")
