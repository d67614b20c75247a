"""The README's receiver code accepts what the worker signs and refuses tampering and replays."""

from __future__ import annotations

import re
import time
from pathlib import Path

from apps.webhooks.signing import secret_new, signature_header

README = Path(__file__).resolve().parents[2] / "README.md"


def _snippet():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    code = next(b for b in blocks if "def xorventa_event" in b)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace["xorventa_event"]


def test_the_readme_verifies_real_signatures():
    verify = _snippet()
    secret, body = secret_new(), b'{"id":"e1","type":"question.created"}'
    header = signature_header(secret, body)
    assert verify(secret, header, body)
    assert not verify(secret, header, body + b" ")
    assert not verify("whsec_other", header, body)
    old = signature_header(secret, body, timestamp=int(time.time()) - 301)
    assert not verify(secret, old, body)
    assert not verify(secret, "v1=abc", body) and not verify(secret, "", body)
