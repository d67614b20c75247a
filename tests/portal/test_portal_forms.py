"""Forms that change the business's knowledge, questions, widget and team, posted as an owner would."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from tests.helpers import run_queued_tasks
from tests.portal.conftest import seed_conversation, seed_knowledge


@pytest.fixture
def owner(bakery):
    return bakery.client(bakery.owner)


@pytest.fixture
def seeded(bakery, in_sunny):
    with in_sunny():
        return seed_knowledge()


def _fact(in_sunny, **filters):
    from apps.facts.models import Fact

    with in_sunny():
        return Fact.objects.filter(**filters).order_by("-id").first()


def test_add_a_fact(owner, in_sunny):
    response = owner.post(
        "/t/sunny/knowledge/",
        {"topic": "Parking", "statement": "Free parking behind the shop.", "visibility": "public"},
    )
    assert response.status_code == 302
    fact = _fact(in_sunny, statement="Free parking behind the shop.")
    assert fact is not None and fact.status == "live" and not fact.is_temporary
    page = owner.get(response["Location"]).content.decode()
    assert "Free parking behind the shop." in page and "Fact added" in page


def test_a_temporary_fact_shows_only_while_it_applies(owner, in_sunny):
    today = timezone.localdate()
    owner.post(
        "/t/sunny/knowledge/",
        {
            "topic": "Opening hours",
            "statement": "Open Monday to Friday, 7 AM to 3 PM.",
            "visibility": "public",
        },
    )
    response = owner.post(
        "/t/sunny/knowledge/",
        {
            "topic": "Opening hours",
            "statement": "Closed on December 26 for the holiday.",
            "valid_from": str(today + timedelta(days=3)),
            "valid_to": str(today + timedelta(days=4)),
            "visibility": "public",
        },
    )
    assert response.status_code == 302
    temporary = _fact(in_sunny, statement="Closed on December 26 for the holiday.")
    assert temporary.valid_to == today + timedelta(days=4)
    during = owner.get(f"/t/sunny/knowledge/?on={today + timedelta(days=3)}").content.decode()
    after = owner.get(f"/t/sunny/knowledge/?on={today + timedelta(days=9)}").content.decode()
    assert "Closed on December 26" in during
    assert "Closed on December 26" not in after
    assert "Open Monday to Friday" in after


def test_a_fact_that_ends_before_it_starts_is_refused(owner, in_sunny):
    today = timezone.localdate()
    response = owner.post(
        "/t/sunny/knowledge/",
        {
            "topic": "Hours",
            "statement": "Open late.",
            "valid_from": str(today + timedelta(days=3)),
            "valid_to": str(today),
            "visibility": "public",
        },
    )
    assert response.status_code == 400 and b"ends before it starts" in response.content
    assert _fact(in_sunny, statement="Open late.") is None


def test_replace_retire_and_restore(owner, seeded, in_sunny):
    price = seeded["price"]
    response = owner.post(f"/t/sunny/knowledge/facts/{price.pk}/replace/", {"statement": "Sourdough is $9."})
    assert response.status_code == 302
    new = _fact(in_sunny, statement="Sourdough is $9.")
    old = _fact(in_sunny, pk=price.pk)
    assert new.status == "live" and old.status == "retired" and old.retired_by_id == new.pk

    refused = owner.post(f"/t/sunny/knowledge/facts/{new.pk}/retire/", {"reason": ""})
    assert refused.status_code == 400
    assert (
        owner.post(
            f"/t/sunny/knowledge/facts/{new.pk}/retire/", {"reason": "We stopped baking it."}
        ).status_code
        == 302
    )
    new = _fact(in_sunny, pk=new.pk)
    assert new.status == "retired" and new.retired_reason == "We stopped baking it."

    assert (
        owner.post(f"/t/sunny/knowledge/facts/{old.pk}/restore/", {"reason": "Wrong edit"}).status_code == 302
    )
    assert _fact(in_sunny, pk=old.pk).status == "live"
    page = owner.get(f"/t/sunny/knowledge/topics/{old.topic_id}/").content.decode()
    assert "Wrong edit" in page and "We stopped baking it." in page  # the history keeps both


def test_accept_and_dismiss_disagreements(owner, seeded, in_sunny):
    from apps.facts.models import Disagreement

    with in_sunny():
        disagreement = Disagreement.objects.get()
    page = owner.get("/t/sunny/knowledge/disagreements/").content.decode()
    assert "Sourdough is $8.50." in page and "Sourdough loaves are $10." in page
    assert (
        owner.post(f"/t/sunny/knowledge/disagreements/{disagreement.pk}/", {"decision": "accept"}).status_code
        == 302
    )
    with in_sunny():
        disagreement.refresh_from_db()
        assert disagreement.status == "accepted"
        assert disagreement.resulting_fact.status == "live"
    assert _fact(in_sunny, pk=seeded["price"].pk).status == "retired"
    again = owner.post(f"/t/sunny/knowledge/disagreements/{disagreement.pk}/", {"decision": "dismiss"})
    assert again.status_code == 302  # already resolved: a message, no change
    with in_sunny():
        disagreement.refresh_from_db()
        assert disagreement.status == "accepted"


def _gap(in_sunny, question, similarity=0.1):
    from apps.gaps.services import gap_record

    with in_sunny():
        return gap_record(question=question, top_similarity=similarity).ticket


def test_answer_a_gap_inline_with_htmx(owner, in_sunny):
    ticket = _gap(in_sunny, "Do you have gluten-free bread?")
    _gap(in_sunny, "Do you sell gift cards?")
    page = owner.get("/t/sunny/gaps/").content.decode()
    assert "Do you have gluten-free bread?" in page and "asked 1 time" in page
    response = owner.post(
        f"/t/sunny/gaps/{ticket.pk}/answer/",
        {"answer": "Yes, gluten-free bread on Fridays."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Answered" in body and "<html" not in body  # a fragment for htmx to swap in
    from apps.gaps.models import GapTicket

    with in_sunny():
        ticket.refresh_from_db()
        assert ticket.status == "answered" and ticket.fact_ids
    empty = owner.post(f"/t/sunny/gaps/{ticket.pk}/answer/", {"answer": ""}, HTTP_HX_REQUEST="true")
    assert empty.status_code == 200
    with in_sunny():
        assert GapTicket.objects.filter(status="open").count() == 1


def test_answer_and_dismiss_a_gap_without_javascript(owner, in_sunny):
    ticket = _gap(in_sunny, "Can I bring my dog?")
    other = _gap(in_sunny, "What is the meaning of life?")
    assert (
        owner.post(f"/t/sunny/gaps/{ticket.pk}/answer/", {"answer": "Dogs are welcome."}).status_code == 302
    )
    assert owner.post(f"/t/sunny/gaps/{other.pk}/dismiss/", {"reason": "off topic"}).status_code == 302
    with in_sunny():
        ticket.refresh_from_db()
        other.refresh_from_db()
    assert (
        ticket.status == "answered" and other.status == "dismissed" and other.dismissed_reason == "off topic"
    )


def test_fix_an_answer_from_a_conversation(owner, seeded, in_sunny):
    from apps.chat.models import Message
    from apps.facts.models import SourceKind, SourceVersion

    with in_sunny():
        conversation = seed_conversation(["Do you make croissants?"])
        reply = Message.objects.filter(conversation=conversation, role="assistant").get()
    page = owner.get(f"/t/sunny/conversations/{conversation.pk}/").content.decode()
    assert "Do you make croissants?" in page and "retrieval log" in page
    response = owner.post(
        f"/t/sunny/conversations/answers/{reply.pk}/fix/", {"answer": "Croissants every morning."}
    )
    assert response.status_code == 302
    with in_sunny():
        version = SourceVersion.objects.filter(source__kind=SourceKind.OWNER_ANSWER).order_by("-id").first()
        assert "Croissants every morning." in version.content
        assert version.question == "Do you make croissants?"


def test_invite_a_team_member(owner, bakery, django_capture_on_commit_callbacks):
    from django.core import mail

    from apps.accounts.models import Invitation

    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post("/t/sunny/team/", {"email": "Baker@Sunny.example", "role": "staff"})
    assert response.status_code == 302
    invitation = Invitation.objects.get(email="baker@sunny.example")
    assert invitation.business == bakery.sunny and invitation.role == "staff"
    assert len(mail.outbox) == 1
    assert "baker@sunny.example" in owner.get("/t/sunny/team/").content.decode()
    assert owner.post("/t/sunny/team/", {"email": "not an email", "role": "staff"}).status_code == 400
    staff = bakery.client(bakery.staff)
    assert staff.post("/t/sunny/team/", {"email": "x@y.example", "role": "owner"}).status_code == 404
    assert not Invitation.objects.filter(email="x@y.example").exists()


def test_widget_settings_and_allowed_origins(owner, bakery, in_sunny):
    form = {
        "display_name": "Sunny",
        "primary_color": "#AA3300",
        "greeting": "Hello! Ask about our bread.",
        "allowed_origins": "https://Sunny-Bakery.example/\nhttps://*.sunny.example\n",
        "lead_capture_text": "Leave your email.",
        "show_sources": "on",
    }
    assert owner.post("/t/sunny/widget/", form).status_code == 302
    from apps.chat.widget import business_identity, widget_settings

    with in_sunny():
        settings_row = widget_settings()
        identity = business_identity()
    assert settings_row.allowed_origins == ["https://sunny-bakery.example", "https://*.sunny.example"]
    assert settings_row.primary_color == "#aa3300" and identity["greeting"] == "Hello! Ask about our bread."
    page = owner.get("/t/sunny/widget/").content.decode()
    assert bakery.sunny.public_key in page and "xorventa/widget.js" in page
    bad = owner.post(
        "/t/sunny/widget/", {**form, "allowed_origins": "ftp://nope.example\nhttps://ok.example/path"}
    )
    assert bad.status_code == 400 and "ftp://nope.example" in bad.content.decode()
    bad_colour = owner.post("/t/sunny/widget/", {**form, "primary_color": "red;}"})
    assert bad_colour.status_code == 400


def test_sources_upload_settings_sync_and_retire(owner, in_sunny, django_capture_on_commit_callbacks):
    from apps.facts.models import IngestionJob, Source, WebsiteSettings

    upload = SimpleUploadedFile("menu.txt", b"Our rye bread costs $7. We open at 8 AM on Saturdays.\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post("/t/sunny/sources/upload/", {"file": upload, "visibility": "public"})
    assert response.status_code == 302
    assert run_queued_tasks() == 1  # the upload is read in the worker, never in the web process
    with in_sunny():
        source = Source.objects.get(kind="document", ref="menu.txt")
        assert source.evidence.exists()
    page = owner.get("/t/sunny/sources/").content.decode()
    assert "menu.txt" in page

    saved = owner.post(
        "/t/sunny/sources/",
        {"start_url": "sunny-bakery.example", "schedule": "weekly", "max_pages": "20", "max_depth": "2"},
    )
    assert saved.status_code == 302
    with in_sunny():
        row = WebsiteSettings.objects.get()
        assert row.start_url == "https://sunny-bakery.example/" and row.schedule == "weekly"
    assert owner.post("/t/sunny/sources/sync/").status_code == 302
    with in_sunny():
        # Saving the address started its first crawl; "sync now" returns that one, not a second.
        job = IngestionJob.objects.filter(kind__in=["crawl", "resync"]).get()
        assert job.kind == "crawl"
    assert owner.get(f"/t/sunny/sources/jobs/{job.pk}/").status_code == 200

    assert owner.post(f"/t/sunny/sources/{source.pk}/retire/", {"reason": "Old menu"}).status_code == 302
    with in_sunny():
        source.refresh_from_db()
        assert not source.is_active and source.retired_reason == "Old menu"


def test_owner_answer_from_the_sources_page(owner, in_sunny):
    from apps.facts.models import SourceVersion

    response = owner.post(
        "/t/sunny/sources/answers/",
        {"question": "Do you cater?", "answer": "Yes, we cater for up to 50 people."},
    )
    assert response.status_code == 302
    with in_sunny():
        assert SourceVersion.objects.filter(question="Do you cater?").exists()


def test_dashboard_shows_real_numbers(owner, seeded, in_sunny):
    with in_sunny():
        seed_conversation(["What are your opening hours?", "Do you sell gift cards?"])
    _gap(in_sunny, "Do you deliver on Sundays?")
    page = owner.get("/t/sunny/").content.decode()
    assert "Do you deliver on Sundays?" in page
    assert "<svg" in page and 'role="img"' in page
    assert "1 disagreement" in page.replace("\n", " ") or "disagreement" in page


def test_demo_conversations_fill_the_dashboard(bakery, owner, in_sunny):
    from apps.chat.models import Conversation
    from apps.gaps.models import GapTicket
    from lab.demo_conversations import VISITS, demo_conversations_seed
    from lab.demo_knowledge import demo_knowledge_seed

    demo_knowledge_seed(bakery.sunny, log=lambda _: None)
    assert demo_conversations_seed(bakery.sunny, log=lambda _: None) == len(VISITS)
    assert demo_conversations_seed(bakery.sunny, log=lambda _: None) == 0  # idempotent
    with in_sunny():
        assert Conversation.objects.count() == len(VISITS)
        assert GapTicket.objects.filter(status="open").exists()
        days = {c.started_at.date() for c in Conversation.objects.all()}
    assert len(days) > 7  # spread over the fortnight for the chart
    page = owner.get("/t/sunny/").content.decode()
    assert "answered" in page and "Questions waiting for you" in page
