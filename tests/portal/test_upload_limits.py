"""Issue 16, finding 6: decompression and parser limits, attacked as an owner would.

Each hostile file is built by the test (a zip-bomb .docx, a .docx of 100,000 entries, a PDF of too
many pages), uploaded through the portal's upload form over HTTP as the business's owner, and read by
the worker's task. The web request only stores the file; the worker refuses it with a reason the
Sources page shows, keeps the file and its job, learns nothing from it, and its own memory does not
grow: the parser runs in a child process under a memory limit.
"""

from __future__ import annotations

import io
import resource
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from docx import Document
from pypdf import PdfWriter

from tests.helpers import run_queued_tasks

BOMB_EXPANDS_TO = 500_000_000
# What a parse of the bomb in this process would add to its peak (the finding: 615 MB -> 2.6 GB).
MAX_GROWTH_KB = 100 * 1024


@pytest.fixture
def owner(bakery):
    return bakery.client(bakery.owner)


@pytest.fixture(autouse=True)
def media(settings, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def small_docx(text: str) -> bytes:
    out = io.BytesIO()
    document = Document()
    document.add_paragraph(text)
    document.save(out)
    return out.getvalue()


def write_docx_bomb(path: Path, expands_to: int) -> None:
    """A valid .docx whose word/document.xml is one paragraph of `expands_to` letters, deflated at
    level 9 (about 1,000 to 1) and written in 1 MB blocks, so building it costs no memory."""
    base = small_docx("Our rye bread costs $7.")
    with (
        zipfile.ZipFile(io.BytesIO(base)) as source,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out,
    ):
        for info in source.infolist():
            if info.filename != "word/document.xml":
                out.writestr(info.filename, source.read(info.filename))
                continue
            xml = source.read(info.filename).decode()
            head, _, rest = xml.partition("<w:body>")
            _, _, tail = rest.partition("</w:body>")
            with out.open("word/document.xml", "w", force_zip64=True) as part:
                part.write(f"{head}<w:body><w:p><w:r><w:t>".encode())
                block = b"a" * (1 << 20)
                left = expands_to
                while left > 0:
                    part.write(block[: min(left, len(block))])
                    left -= len(block)
                part.write(f"</w:t></w:r></w:p></w:body>{tail}".encode())


def docx_with_entries(count: int) -> bytes:
    """A valid .docx (17 parts) with `count` extra empty ones (short names, stored: 8 MB for 100,000)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(small_docx("Our rye bread costs $7."))) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target,
    ):
        for info in source.infolist():
            target.writestr(info.filename, source.read(info.filename))
        for number in range(count):
            target.writestr(_base36(number), b"")
    return out.getvalue()


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    name = ""
    while True:
        number, rest = divmod(number, 36)
        name = digits[rest] + name
        if not number:
            return name


def pdf_with_pages(count: int) -> bytes:
    writer = PdfWriter()
    for _ in range(count):
        writer.add_blank_page(width=612, height=792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bomb") / "menu.docx"
    write_docx_bomb(path, BOMB_EXPANDS_TO)
    assert path.stat().st_size < 1_000_000  # a 500 MB document in under 1 MB
    return path


def upload(owner, django_capture_on_commit_callbacks, name: str, data: bytes):
    """Post the file through the Sources page's upload form; the job is queued, nothing is read yet."""
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(
            "/t/sunny/sources/upload/",
            {"file": SimpleUploadedFile(name, data), "visibility": "public"},
        )
    assert response.status_code == 302
    return response


def peak_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def assert_refused(owner, in_sunny, name: str, data: bytes, reason: str) -> None:
    """The worker refused the file with `reason`, kept it and its job, and learned nothing from it."""
    from apps.facts.models import Fact, IngestionJob, JobStatus, Source

    with in_sunny():
        job = IngestionJob.objects.get(target=name)
        assert job.status == JobStatus.FAILED
        assert job.error == reason
        assert job.errors == [{"file": name, "error": reason}]
        with job.file.open("rb") as stored:  # nothing lost: the owner's file is kept as uploaded
            assert stored.read() == data
        assert not Source.objects.filter(ref=name).exists()
        assert not Fact.objects.exists()
    page = owner.get("/t/sunny/sources/").content.decode()
    assert reason in page.replace("&#x27;", "'")


def test_a_zip_bomb_docx_is_refused_by_its_declared_size_in_the_worker(
    owner, in_sunny, bomb, django_capture_on_commit_callbacks
):
    from apps.facts.models import IngestionJob, JobStatus, Source

    data = bomb.read_bytes()
    before = peak_rss_kb()  # this process is the web process, then the worker
    upload(owner, django_capture_on_commit_callbacks, "menu.docx", data)
    with in_sunny():  # the web process stored the file and queued the job; it parsed nothing
        assert IngestionJob.objects.get(target="menu.docx").status == JobStatus.QUEUED
        assert not Source.objects.exists()

    assert run_queued_tasks() == 1
    assert peak_rss_kb() - before < MAX_GROWTH_KB
    assert_refused(
        owner, in_sunny, "menu.docx", data, "Refused: the document expands to 500.8 MB, over the 50 MB limit."
    )


def test_a_bomb_past_the_static_limits_ends_the_parser_child_not_the_worker(
    owner, in_sunny, bomb, settings, django_capture_on_commit_callbacks
):
    # An operator raised the limits far enough for the bomb to pass: the memory limit still holds.
    settings.XORVENTA_MAX_UNZIPPED_BYTES = 2_000_000_000
    settings.XORVENTA_MAX_ZIP_RATIO = 1_000_000
    settings.XORVENTA_PARSER_MEMORY_MB = 256
    data = bomb.read_bytes()
    before = peak_rss_kb()
    upload(owner, django_capture_on_commit_callbacks, "menu.docx", data)
    assert run_queued_tasks() == 1
    assert peak_rss_kb() - before < MAX_GROWTH_KB
    assert_refused(
        owner,
        in_sunny,
        "menu.docx",
        data,
        "Refused: reading the document needs more than 256 MB of memory, the limit.",
    )


@pytest.mark.parametrize(
    ("name", "build", "reason"),
    [
        (
            "catalogue.docx",
            lambda: docx_with_entries(100_000),
            "Refused: the document holds 100,017 files, over the limit of 1,000.",
        ),
        (
            "brochure.pdf",
            lambda: pdf_with_pages(501),
            "Refused: the PDF has 501 pages, over the limit of 500.",
        ),
    ],
)
def test_too_many_parts_or_pages_are_refused(
    owner, in_sunny, name, build, reason, django_capture_on_commit_callbacks
):
    data = build()
    upload(owner, django_capture_on_commit_callbacks, name, data)
    assert run_queued_tasks() == 1
    assert_refused(owner, in_sunny, name, data, reason)


def test_ordinary_documents_are_still_read_in_the_worker(owner, in_sunny, django_capture_on_commit_callbacks):
    from apps.facts.models import IngestionJob, JobStatus, Source
    from tests.facts.test_documents import make_pdf

    files = {
        "menu.docx": small_docx("Our rye bread costs $7. We open at 8 AM on Saturdays."),
        "prices.pdf": make_pdf([["Croissants cost $3.50.", "We deliver within 5 miles."]]),
    }
    for name, data in files.items():
        upload(owner, django_capture_on_commit_callbacks, name, data)
    assert run_queued_tasks() == 2
    with in_sunny():
        for name in files:
            job = IngestionJob.objects.get(target=name)
            assert job.status == JobStatus.DONE, job.error
            assert Source.objects.get(ref=name).evidence.exists()


def test_a_refused_file_is_kept_and_read_once_the_limit_allows_it(
    owner, in_sunny, settings, django_capture_on_commit_callbacks
):
    from apps.facts.ingestion import ingestion_job_resume
    from apps.facts.models import IngestionJob, JobStatus, Source

    settings.XORVENTA_MAX_ZIP_ENTRIES = 10
    data = small_docx("Our rye bread costs $7. We open at 8 AM on Saturdays.")
    upload(owner, django_capture_on_commit_callbacks, "menu.docx", data)
    assert run_queued_tasks() == 1
    assert_refused(
        owner, in_sunny, "menu.docx", data, "Refused: the document holds 17 files, over the limit of 10."
    )

    settings.XORVENTA_MAX_ZIP_ENTRIES = 1000  # the operator raises the limit; staff resume the job
    with in_sunny():
        job = ingestion_job_resume(job=IngestionJob.objects.get(target="menu.docx"), background=False)
        assert (job.status, job.error) == (JobStatus.DONE, "")
        assert Source.objects.get(ref="menu.docx").evidence.exists()
