"""What the settings and the start-up need to know about the services a deployment runs beside us.

Settings switch on environment variables only (README, "Beyond one machine"): these helpers turn a
missing extra or a half-set variable into a clear ImproperlyConfigured at start, not a traceback at
the first upload, and refuse a connection pooler that would mix businesses' schemas.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ImproperlyConfigured


def require_extra(extra: str, modules: Iterable[str], why: str) -> None:
    """Refuse to start when ``why`` asks for modules that the ``xorventa[extra]`` extra installs."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise ImproperlyConfigured(
            f"{why}, but {', '.join(missing)} is not installed: pip install 'xorventa[{extra}]' "
            f"(or unset the variable to stay on one machine)."
        )


def s3_storage_options() -> dict[str, Any]:
    """django-storages' S3Storage options from the usual AWS_* variables (XORVENTA_STORAGE=s3)."""
    require_extra("s3", ("storages", "boto3"), "XORVENTA_STORAGE=s3")
    bucket = os.environ.get("AWS_STORAGE_BUCKET_NAME", "").strip()
    if not bucket:
        raise ImproperlyConfigured(
            "XORVENTA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME (and AWS_S3_ENDPOINT_URL for a server "
            "other than AWS, AWS_S3_REGION_NAME, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)."
        )
    options: dict[str, Any] = {
        "bucket_name": bucket,
        # Private objects, read through the storage API (or short-lived signed URLs), never public.
        "default_acl": None,
        "querystring_auth": True,
        # Two uploads with one name keep both files, as on the local disk.
        "file_overwrite": False,
    }
    for option, variable in (
        ("endpoint_url", "AWS_S3_ENDPOINT_URL"),
        ("region_name", "AWS_S3_REGION_NAME"),
        ("access_key", "AWS_ACCESS_KEY_ID"),
        ("secret_key", "AWS_SECRET_ACCESS_KEY"),
    ):
        value = os.environ.get(variable, "").strip()
        if value:  # unset: boto3's own chain (instance role, ~/.aws) decides
            options[option] = value
    return options
