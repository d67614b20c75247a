"""Fixtures of the v1 API tests: two businesses of one reseller, one of another, and keys."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def sunny(make_business):
    return make_business("sunny", "Sunny Bakery")


@pytest.fixture
def owner(make_user, sunny):
    return make_user("owner@sunny.test", role="owner", business=sunny)


@pytest.fixture
def make_key(owner):
    from apps.accounts.api_keys import api_key_create

    def make(*, business=None, reseller=None, access="write", name="test"):
        _key, text = api_key_create(
            name=name, access=access, business=business, reseller=reseller, created_by=owner
        )
        return text

    return make


class Api:
    """A client for one business through one routing: by host (sunny.localhost) or by path (/t/sunny)."""

    def __init__(self, key: str, *, slug: str | None, routing: str = "host"):
        self.client = Client(HTTP_AUTHORIZATION=f"Api-Key {key}")
        self.slug, self.routing = slug, routing

    def _url(self, path: str) -> tuple[str, dict[str, str]]:
        if self.slug is None:
            return f"/api/v1/{path}", {"HTTP_HOST": "localhost"}
        if self.routing == "path":
            return f"/t/{self.slug}/api/v1/{path}", {"HTTP_HOST": "localhost"}
        return f"/api/v1/{path}", {"HTTP_HOST": f"{self.slug}.localhost"}

    def get(self, path: str, **kwargs):
        url, extra = self._url(path)
        return self.client.get(url, **extra, **kwargs)

    def post(self, path: str, data=None, **kwargs):
        url, extra = self._url(path)
        if "content_type" not in kwargs and not kwargs.get("multipart"):
            kwargs["content_type"] = "application/json"
        kwargs.pop("multipart", None)
        return self.client.post(url, data if data is not None else {}, **extra, **kwargs)

    def patch(self, path: str, data, **kwargs):
        url, extra = self._url(path)
        return self.client.patch(url, data, content_type="application/json", **extra, **kwargs)

    def delete(self, path: str, **kwargs):
        url, extra = self._url(path)
        return self.client.delete(url, **extra, **kwargs)


@pytest.fixture
def api():
    return Api
