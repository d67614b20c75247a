"""Per-business backup and restore (`backup_business`, `restore_business`): round trips that compare every
row of every table of the business's schema (facts, evidence, events, sources, versions, parts,
disagreements, pieces with their vectors, conversations, messages, gaps, jobs...) and the uploaded files.

Three restores of one backup: as a copy under another address, replacing the same business after it
changed, and as the original business after it was deleted (widget key, domain, members and re-sync
schedule come back). A damaged file restores nothing. Figures go to <pytest tmp>/backup-report.json.
"""

from __future__ import annotations

import json
import zipfile
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from django_tenants.utils import tenant_context

from apps.tenants.models import Business
from apps.tenants.services import business_delete
from tests.conftest import ScriptedExtractor

pytestmark = pytest.mark.django_db(transaction=True)  # the backup takes its own REPEATABLE READ snapshot

KEY_TABLES = [
    "facts_fact",
    "facts_evidence",
    "facts_factevent",
    "facts_source",
    "facts_sourceversion",
    "facts_sourcepart",
    "facts_disagreement",
    "facts_fact_replaces",
    "facts_ingestionjob",
    "retrieval_piece",
    "retrieval_indexstate",
    "chat_conversation",
    "chat_message",
    "chat_widgetsettings",
    "gaps_gapticket",
    "gaps_gapask",
]


def seed(business: Any) -> None:
    """A business with a history: replaced, retired and restored facts, a disagreement, an uploaded
    document, an answered and an open gap, conversations, and the index built from all of it."""
    from apps.chat.models import WidgetSettings
    from apps.chat.services import answer_once, conversation_open
    from apps.facts.ingestion import document_upload, website_settings_update
    from apps.facts.services import fact_restore, fact_retire, owner_fact_add, source_ingest
    from apps.gaps.services import gap_answer, gap_record

    with tenant_context(business):
        WidgetSettings.objects.create(allowed_origins=["https://anvil.example"])
        today = timezone.localdate()
        hours = owner_fact_add(topic="Opening hours", statement="Open Monday to Friday, 9 AM to 5 PM.").added[
            0
        ]
        owner_fact_add(
            topic="Opening hours",
            statement="Open Monday to Saturday, 9 AM to 5 PM.",
            replaces=[hours],
            actor="owner@anvil.example",
        )
        owner_fact_add(
            topic="Opening hours",
            statement="Closed for inventory this week.",
            valid_from=today,
            valid_to=today + timedelta(days=6),
        )
        price = owner_fact_add(topic="Horseshoes", aspect="price", statement="A horseshoe is $40.").added[0]
        fact_retire(fact=price, reason="price list changes", actor="owner@anvil.example")
        fact_restore(fact=price, reason="back again", actor="owner@anvil.example")
        flyer = "Horseshoes are $35 this month."
        source_ingest(
            kind="document",
            ref="flyer.txt",
            title="flyer.txt",
            content=flyer,
            extractor=ScriptedExtractor(
                {flyer: [{"topic": "Horseshoes", "aspect": "price", "statement": flyer, "value": "$35"}]}
            ),
        )
        document_upload(
            filename="services.txt",
            data=b"Gate repairs cost $120.\nWe deliver within 10 miles.\nWe are open Saturday 9 AM to 1 PM.\n",
        )
        website_settings_update(start_url="https://anvil.example/", schedule="daily")
        open_gap = gap_record(question="Do you forge knives?", top_similarity=0.1).ticket
        answered = gap_record(question="Do you weld aluminium?", top_similarity=0.2).ticket
        gap_answer(ticket=answered, answer="Yes, we weld aluminium, from $60.", actor="owner@anvil.example")
        for visitor, questions in (
            ("visitor-aaaa0001", ["When are you open?", "How much is a horseshoe?"]),
            ("visitor-aaaa0002", ["Do you repair gates?", "Do you sell llama wool?"]),
        ):
            conversation = conversation_open(visitor_id=visitor)
            for text in questions:
                answer_once(conversation_id=conversation.pk, text=text)
        assert open_gap is not None


def snapshot(schema: str) -> dict[str, list[str]]:
    """Every row of every table of the schema, as PostgreSQL renders it (vectors included), sorted."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
        tables = sorted(row[0] for row in cursor.fetchall())
        rows = {}
        for table in tables:
            if table == "django_migrations":  # (app, name) compared; when they were applied differs
                cursor.execute(f"SELECT app || '.' || name FROM \"{schema}\".django_migrations")  # noqa: S608
            else:
                cursor.execute(f'SELECT t::text FROM "{schema}"."{table}" t')  # noqa: S608
            rows[table] = sorted(row[0] for row in cursor.fetchall())
    return rows


def as_schema(rows: dict[str, list[str]], old: str, new: str) -> dict[str, list[str]]:
    """The stored file names start with the schema's folder: compare a copy's rows under the original's."""
    return {
        table: sorted(r.replace(f"{new}/documents/", f"{old}/documents/") for r in values)
        for table, values in rows.items()
    }


def media(schema: str) -> dict[str, bytes]:
    root = Path(settings.MEDIA_ROOT) / schema
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def anvil(make_business, make_user, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    business = make_business("anvil", "Anvil Forge")
    make_user("owner@anvil.example", role="owner", business=business)
    make_user("staff@anvil.example", role="staff", business=business)
    seed(business)
    yield business
    connection.set_schema_to_public()
    for slug in ("anvil", "anvil-copy", "broken"):
        found = Business.objects.filter(slug=slug).first()
        if found is not None:
            business_delete(business=found)


def test_backup_and_three_restores_keep_every_row(anvil, tmp_path, tmp_path_factory, request):
    from django_q.models import Schedule

    from apps.accounts.models import Membership
    from apps.facts.models import Fact
    from apps.facts.services import owner_fact_add
    from apps.retrieval.search import retrieve

    original = snapshot("biz_anvil")
    files = media("biz_anvil")
    for table in KEY_TABLES:
        assert original.get(table), f"{table} is empty: the round trip would prove nothing about it"
    assert files and "vector" not in original  # sanity: rows keyed by table
    total_rows = sum(len(v) for t, v in original.items() if t != "django_migrations")
    key = anvil.public_key
    path = tmp_path / "anvil.zip"

    out = run("backup_business", "anvil", "--output", str(path))
    assert f"{total_rows} rows" in out, out
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert manifest["business"]["memberships"] == [
        {"email": "owner@anvil.example", "role": "owner"},
        {"email": "staff@anvil.example", "role": "staff"},
    ]
    figures: dict[str, Any] = {
        "tables": len(original),
        "rows": total_rows,
        "files": len(files),
        "restores": {},
    }

    # 1. A copy under another address: the same rows, its own widget key; it answers and it grows.
    out = run("restore_business", str(path), "--slug", "anvil-copy", "--name", "Anvil Copy")
    copy = Business.objects.get(slug="anvil-copy")
    restored = as_schema(snapshot("biz_anvil_copy"), "biz_anvil", "biz_anvil_copy")
    assert restored == original
    assert media("biz_anvil_copy") == files
    assert copy.public_key != key and not Membership.objects.filter(business=copy).exists()
    with tenant_context(copy):
        result = retrieve("How much is a horseshoe?", on=timezone.localdate())
        assert "$40" in result.context_text()
        added = owner_fact_add(topic="Knives", statement="We forge kitchen knives.").added[0]
        assert added.pk > max(Fact.objects.exclude(pk=added.pk).values_list("pk", flat=True))
    figures["restores"]["copy"] = _lost(original, restored)

    # 2. The same business, after it changed: replaced by the backup.
    with tenant_context(anvil):
        owner_fact_add(topic="Knives", statement="We forge hunting knives.")
    assert snapshot("biz_anvil") != original
    run("restore_business", str(path), "--into", "anvil", "--replace")
    replaced = snapshot("biz_anvil")
    assert replaced == original
    assert media("biz_anvil") == files
    figures["restores"]["replace"] = _lost(original, replaced)

    # 3. The business was deleted: it comes back as it was, widget key, domain, members and schedule.
    business_delete(business=Business.objects.get(slug="anvil"))
    Schedule.objects.filter(name="website-resync:biz_anvil").delete()
    out = run("restore_business", str(path))
    back = Business.objects.get(slug="anvil")
    assert "embedded widgets keep working" in out and "owner@anvil.example" in out
    assert back.public_key == key
    assert list(back.domains.values_list("domain", flat=True)) == ["anvil.localhost"]
    assert set(Membership.objects.filter(business=back).values_list("user__email", "role")) == {
        ("owner@anvil.example", "owner"),
        ("staff@anvil.example", "staff"),
    }
    schedule = Schedule.objects.get(name="website-resync:biz_anvil")
    assert schedule.args == repr(("biz_anvil", "apps.facts.tasks.website_resync_task"))
    recreated = snapshot("biz_anvil")
    assert recreated == original
    figures["restores"]["after_delete"] = _lost(original, recreated)
    assert all(r["rows_lost"] == 0 and r["rows_changed"] == 0 for r in figures["restores"].values())

    out_file = tmp_path_factory.getbasetemp() / "backup-report.json"
    out_file.write_text(json.dumps(figures, indent=2))
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(
            f"\n[backup] {figures['tables']} tables, {figures['rows']} rows, {figures['files']} files; "
            f"restores {figures['restores']} ({out_file})"
        )


def _lost(before: dict[str, list[str]], after: dict[str, list[str]]) -> dict[str, int]:
    lost = changed = 0
    for table, rows in before.items():
        if table == "django_migrations":
            continue
        missing = len(set(rows) - set(after.get(table, [])))
        lost += max(0, len(rows) - len(after.get(table, [])))
        changed += missing
    compared = sum(len(v) for t, v in before.items() if t != "django_migrations")
    return {"rows_compared": compared, "rows_lost": lost, "rows_changed": changed}


def test_a_damaged_or_mismatched_backup_restores_nothing(anvil, tmp_path):
    path = tmp_path / "anvil.zip"
    run("backup_business", "anvil", "--output", str(path))
    # Flip the data of one table (same size, same row count: only the checksum can tell).
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(damaged, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "data/facts_fact.copy":
                data = data.replace(b"$40", b"$99")
            dst.writestr(info, data)
    with pytest.raises(CommandError, match="damaged"):
        run("restore_business", str(damaged), "--slug", "broken")
    assert not Business.objects.filter(slug="broken").exists()
    assert not (Path(settings.MEDIA_ROOT) / "biz_broken").exists()
    # Replacing with a damaged file leaves the business as it was.
    before = snapshot("biz_anvil")
    with pytest.raises(CommandError, match="damaged"):
        run("restore_business", str(damaged), "--into", "anvil", "--replace")
    assert snapshot("biz_anvil") == before
    # A backup from other migrations is refused before anything is written.
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(other, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["migrations"].append(["facts", "9999_future"])
                data = json.dumps(manifest).encode()
            dst.writestr(info, data)
    with pytest.raises(CommandError, match="other migrations"):
        run("restore_business", str(other), "--slug", "broken")
    assert not Business.objects.filter(slug="broken").exists()
    # The slug of a live business needs --into/--replace; a file that is not a backup is refused.
    with pytest.raises(CommandError, match="already exists"):
        run("restore_business", str(path))
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(CommandError, match="not a business backup"):
        run("restore_business", str(tmp_path / "junk.zip"))
