"""What every v1 endpoint shares: API-key authentication and scope, per-key rate limits, the one error
shape (drf-standardized-errors), cursor pagination, ETags on reads, and the per-request usage log.

A key of one business never works on another: the business comes from the routing (host or /t/<slug>/
path, apps/tenants/routing.py), and the key must reach it (apps.accounts.api_keys.api_key_reaches).
Refusals of scope are 404s, as in the portal's access gate: a key cannot even learn that another
business exists. Every request is looked up again, so a key revoked mid-session is refused at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.cache import get_conditional_response, set_response_etag
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_standardized_errors.handler import exception_handler as standard_errors
from drf_standardized_errors.openapi import AutoSchema as StandardErrorsSchema
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import BasePagination, CursorPagination
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework_api_key.permissions import KeyParser

from apps.accounts.api_keys import api_key_check, api_key_reaches, api_key_use_record
from apps.accounts.models import ApiKey
from apps.facts.ingestion import IngestionInputError
from apps.facts.services import KnowledgeInputError
from apps.tenants.rate_limits import Limit, limit_hit

logger = logging.getLogger("xorventa.api")


class ApiKeyAuthentication(BaseAuthentication):
    """``Authorization: Api-Key <prefix>.<secret>``. Without that header the request is anonymous
    (then refused with a 401); with a wrong, revoked or expired key it is refused outright."""

    def authenticate(self, request: Request) -> tuple[Any, ApiKey] | None:
        text = KeyParser().get(request)
        if not text:
            return None
        key = api_key_check(text)
        if key is None:
            raise exceptions.AuthenticationFailed("This API key is unknown, revoked or expired.")
        return (key.created_by or AnonymousUser(), key)

    def authenticate_header(self, request: Request) -> str:
        return "Api-Key"


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = ApiKeyAuthentication
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Authorization: Api-Key <key>`; keys are made in the portal (Team) or the console.",
        }


def _key(request: Request) -> ApiKey | None:
    # The stored result, never ``request.auth``: that would authenticate again after a refusal.
    auth = request.__dict__.get("_auth")
    return auth if isinstance(auth, ApiKey) else None


def _check_write(request: Request, key: ApiKey) -> None:
    if request.method not in SAFE_METHODS and not key.can_write:
        raise exceptions.PermissionDenied("This API key is read-only.")


class BusinessKey(BasePermission):
    """A key that reaches the business the request was routed to (read-only keys: reads only)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        key = _key(request)
        if key is None:
            return False  # DRF answers 401: no key was given
        business = getattr(request, "tenant", None)
        if business is None or not api_key_reaches(key, business):
            raise exceptions.NotFound("No such business.")
        _check_write(request, key)
        return True


class ResellerKey(BasePermission):
    """A reseller's key, on the public site (the reseller's own endpoints)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        key = _key(request)
        if key is None:
            return False
        if key.reseller_id is None or getattr(request, "tenant", None) is not None:
            raise exceptions.NotFound("No such reseller (use a reseller's key on the main site).")
        _check_write(request, key)
        return True


class KeyRateThrottle(BaseThrottle):
    """Per key, across every business it reaches: the shared fixed-window counter (no tenant prefix)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        key = _key(request)
        if key is None:
            return True
        limit = Limit("api-key", int(settings.XORVENTA_API_KEY_RATE), 60)
        return limit_hit(limit, key.prefix) <= limit.count

    def wait(self) -> float:
        return 60 - (time.time() % 60)


class Cursor(CursorPagination):
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200
    ordering = "-id"


class Schema(StandardErrorsSchema):
    """The error responses of every operation, plus the 304 of a conditional GET."""

    def _get_validation_error_codes_by_field(self, data_fields: Any) -> Any:
        """A write's service may refuse any of its fields, or the request as a whole (input_errors)."""
        codes = super()._get_validation_error_codes_by_field(data_fields)
        if self.method in ("POST", "PUT", "PATCH", "DELETE"):
            for field in codes:
                codes[field].add("invalid")
            codes["non_field_errors"].add("invalid")
        return codes

    def _should_add_validation_error_response(self) -> bool:
        return (
            self.method in ("POST", "PUT", "PATCH", "DELETE")
            or super()._should_add_validation_error_response()
        )

    def _get_response_bodies(self, direction: str = "response") -> Any:
        responses = super()._get_response_bodies(direction=direction)  # type: ignore[arg-type]
        if direction == "response" and self.method == "GET":
            responses["304"] = {"description": "Not modified: the If-None-Match header matched the ETag."}
        return responses


@contextmanager
def input_errors() -> Iterator[None]:
    """A service's refusal of bad input becomes a 400 in the one error shape."""
    try:
        yield
    except DjangoValidationError as exc:
        raise exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        ) from None
    except (KnowledgeInputError, IngestionInputError) as exc:
        raise exceptions.ValidationError({"non_field_errors": [str(exc)]}) from None


class ApiView(GenericAPIView):  # type: ignore[type-arg,unused-ignore]
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [BusinessKey]
    throttle_classes = [KeyRateThrottle]
    pagination_class: type[BasePagination] | None = Cursor
    schema = Schema()

    def valid(self, serializer_class: type[Any]) -> dict[str, Any]:
        """The request body, checked by ``serializer_class`` (a 400 in the one error shape if not)."""
        data = serializer_class(data=self.request.data)
        data.is_valid(raise_exception=True)
        return dict(data.validated_data)

    def get_exception_handler(self) -> Any:
        return standard_errors

    @property
    def actor(self) -> str:
        """How the knowledge history names what a key did."""
        key = _key(self.request)
        return f"API key {key.name} ({key.prefix})" if key else ""

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method == "GET" and response.status_code == 200 and not response.streaming:
            # ETags from the rendered body (cheap next to the queries): an unchanged read is a 304.
            response.render()
            set_response_etag(response)
            response = get_conditional_response(request._request, etag=response["ETag"], response=response)
        key = _key(request)
        if key is not None:
            business = getattr(request, "tenant", None)
            api_key_use_record(
                key=key,
                business_slug=business.slug if business else "",
                method=request.method or "",
                path=request.path,
                status=response.status_code,
            )
            logger.info("api %s %s %s key=%s", request.method, request.path, response.status_code, key.prefix)
        return response


class ResellerApiView(ApiView):
    permission_classes = [ResellerKey]

    @property
    def reseller(self) -> Any:
        key = _key(self.request)
        assert key is not None and key.reseller is not None  # ResellerKey let the request in
        return key.reseller
