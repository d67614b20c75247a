"""Uploads on an S3-compatible server (issue 22, item 1): moto's server from PyPI, a real HTTP S3 API.

An upload is stored in the bucket (nothing on the local disk), read back from it by the ingestion path
(the parse child is fed the bytes the storage API returned), and a backup and restore carry the file
through the storage API too.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from django.core.files.storage import default_storage
from django.db import connection
from django_tenants.utils import tenant_context

from apps.accounts.backup import business_backup, business_restore
from apps.facts.ingestion import document_upload, ingestion_job_run
from apps.facts.models import Fact, IngestionJob, JobStatus
from apps.tenants.services import business_delete
from tests.deployment.services import s3_server

BUCKET = "xorventa-uploads"


@pytest.fixture
def s3_storage(settings, tmp_path: Path) -> Iterator[object]:
    with s3_server(tmp_path / "moto") as endpoint:
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )
        client.create_bucket(Bucket=BUCKET)
        settings.MEDIA_ROOT = tmp_path / "local-media"  # must stay empty
        settings.STORAGES = {
            **settings.STORAGES,
            "default": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    "bucket_name": BUCKET,
                    "endpoint_url": endpoint,
                    "region_name": "us-east-1",
                    "access_key": "test",
                    "secret_key": "test",
                    "default_acl": None,
                    "file_overwrite": False,
                },
            },
        }
        yield client


def _keys(client) -> list[str]:
    return sorted(o["Key"] for o in client.list_objects_v2(Bucket=BUCKET).get("Contents", []))


@pytest.mark.django_db(transaction=True)
def test_an_upload_is_stored_in_s3_and_read_back_from_it(business, s3_storage, settings):
    with tenant_context(business):
        job = document_upload(
            filename="prices.txt",
            data=b"Bagel is $2.\n\nMuffin is $3.\n",
        )
        assert job.status == JobStatus.DONE, job.error
        statements = " ".join(Fact.objects.values_list("statement", flat=True))
        assert "$2" in statements and "$3" in statements, statements
        name = job.file.name
    assert _keys(s3_storage) == [name] and name.startswith(f"{business.schema_name}/documents/")
    assert not Path(settings.MEDIA_ROOT).exists()  # nothing assumed a local disk

    # The worker reads what a web process stored: gone from the bucket, the job says so.
    s3_storage.delete_object(Bucket=BUCKET, Key=name)
    with tenant_context(business):
        again = document_upload(filename="menu.txt", data=b"Scone is $4.\n", background=True)
        s3_storage.delete_object(Bucket=BUCKET, Key=again.file.name)
        ingestion_job_run(again.pk)
        assert "missing from storage" in IngestionJob.objects.get(pk=again.pk).error


@pytest.mark.django_db(transaction=True)
def test_backup_and_restore_carry_uploads_through_s3(business, s3_storage, tmp_path):
    with tenant_context(business):
        job = document_upload(filename="hours.txt", data=b"Open 9 to 5.\n")
        name = job.file.name
    report = business_backup(business=business, path=tmp_path / "backup.zip")
    assert report.files == 1
    with zipfile.ZipFile(tmp_path / "backup.zip") as archive:
        relative = name[len(business.schema_name) + 1 :]
        assert archive.read(f"media/{relative}") == b"Open 9 to 5.\n"
    restored = business_restore(path=tmp_path / "backup.zip", slug="copy-of-demo").business
    copy_name = f"{restored.schema_name}/{relative}"
    assert copy_name in _keys(s3_storage)
    assert not any(k.startswith(".restoring-") for k in _keys(s3_storage))  # staging cleaned up
    try:
        with tenant_context(restored):
            assert IngestionJob.objects.get(target="hours.txt").file.name == copy_name
            assert default_storage.open(copy_name).read() == b"Open 9 to 5.\n"
    finally:
        connection.set_schema_to_public()
        business_delete(business=restored)
