"""Loaded by pytest before Django's settings (see pyproject addopts): the test environment.

Tests run with production settings (DEBUG off) so they see what a deployment would; only what a test
client cannot provide (TLS, a real secret) is relaxed here.
"""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("ALLOWED_HOSTS", ".localhost,localhost,testserver,127.0.0.1")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("SESSION_COOKIE_SECURE", "0")
os.environ.setdefault("CSRF_COOKIE_SECURE", "0")
os.environ.setdefault("XORVENTA_EXTRACTOR", "builtin")
# The development-only app (lab/: demo, scenario replay, security suite, benchmarks) is tested too.
os.environ.setdefault("XORVENTA_LAB", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("XORVENTA_TORCH_THREADS", "1")
# The crawler tests crawl local sites on 127.0.0.1 (some from a worker or a child process): loopback is
# allowed here, and only here. The SSRF tests (tests/security/test_ssrf.py) switch it off again.
os.environ.setdefault("XORVENTA_OUTBOUND_ALLOW_LOOPBACK", "1")
for name in ("XORVENTA_LLM_BASE_URL", "XORVENTA_LLM_MODEL", "DATABASE_URL_FOR_APP"):
    os.environ.pop(name, None)
