"""The API's schema and its two readers, Swagger UI and Redoc, served from this server only.

Both UIs come from the drf-spectacular-sidecar package (``SWAGGER_UI_DIST`` / ``REDOC_DIST`` =
``"SIDECAR"``), collected with the other static files, so the docs work on a machine with no internet.
Each docs page sends its own Content-Security-Policy that allows 'self' only, so a load from a CDN
(drf-spectacular's defaults, Redoc's Google Fonts) would be refused by the browser rather than silently
needed. Swagger UI uses the split view (its start-up script is a separate request, no inline script).
"""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

# What the two UIs need, all from this origin: their inline styles (both inject <style> elements at run
# time), data: images (Swagger UI's icons), and a blob: worker (Redoc's search index).
DOCS_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; worker-src 'self' blob:; "
    "frame-ancestors 'none'; base-uri 'self'; object-src 'none'; form-action 'self'"
)


class _SelfOnly:
    def finalize_response(self, request: Any, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        response["Content-Security-Policy"] = DOCS_POLICY
        return response


class SwaggerView(_SelfOnly, SpectacularSwaggerSplitView):
    pass


class RedocView(_SelfOnly, SpectacularRedocView):
    template_name = "api_docs/redoc.html"  # the package's page without its Google Fonts links


def docs_urlpatterns(*, urlconf: str | None = None) -> list[URLPattern]:
    """The schema at /api/schema/, Swagger UI at /api/docs/ and Redoc at /api/redoc/."""
    schema = SpectacularAPIView.as_view(urlconf=urlconf) if urlconf else SpectacularAPIView.as_view()
    return [
        path("api/schema/", schema, name="api-schema"),
        path("api/docs/", SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
        path("api/redoc/", RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    ]
