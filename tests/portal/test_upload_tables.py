"""Issue 17, item 3, end to end: a .docx price table uploaded through the Sources page is read by the
worker's task (stored by the web request, parsed in the child process, split, extracted, applied) and
becomes one clean fact per row and column. On the code before the table reader its rows became facts
such as "Deluxe wash | $30 | $45." with no column."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.facts.test_tables_upload import price_docx
from tests.helpers import run_queued_tasks
from tests.portal.test_upload_limits import upload


@pytest.fixture
def owner(bakery):
    return bakery.client(bakery.owner)


@pytest.fixture(autouse=True)
def media(settings, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def test_a_docx_price_table_uploaded_by_the_owner_gives_per_row_facts(
    owner, in_sunny, django_capture_on_commit_callbacks
):
    from apps.facts.models import Fact, FactStatus, IngestionJob, JobStatus

    upload(owner, django_capture_on_commit_callbacks, "wash-menu.docx", price_docx())
    assert run_queued_tasks() >= 1
    with in_sunny():
        job = IngestionJob.objects.get(target="wash-menu.docx")
        assert job.status == JobStatus.DONE, job.error
        facts = {
            (f.topic.name, f.aspect): f
            for f in Fact.objects.filter(status=FactStatus.LIVE).select_related("topic")
        }
    assert facts[("Deluxe wash", "price for suv")].statement == "Deluxe wash, SUV: $45."
    assert facts[("Express wash", "price for car")].value == "$12"
    assert facts[("Interior detail", "price for suv")].value == "from $149"
    assert all("|" not in f.statement for f in facts.values())
