"""A reseller administrator's businesses, with the administrator's own login (a DRF token or the
session, not an API key): list and create them at /api/v1/businesses. The key-authenticated reseller
API (suspend, delete, team, usage) is reseller.py."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.access import resellers_administered
from apps.accounts.services import business_create_with_owner
from apps.tenants.models import Business, Reseller
from apps.tenants.services import business_host


def _reseller_for(request: Request, slug: str | None) -> Reseller:
    resellers = resellers_administered(request.user)
    if slug:
        resellers = [r for r in resellers if r.slug == slug]
    if not resellers:
        raise NotFound("You administer no reseller (or not that one).")
    if len(resellers) > 1:
        raise ValidationError({"reseller": "You administer several resellers: name one."})
    return resellers[0]


class BusinessOutput(serializers.ModelSerializer[Business]):
    host = serializers.SerializerMethodField()
    reseller = serializers.CharField(source="reseller.slug")

    class Meta:
        model = Business
        fields = ["name", "slug", "reseller", "public_key", "host", "created_at"]

    def get_host(self, business: Business) -> str:
        return business_host(business.slug)


class BusinessListCreateApi(APIView):
    class BusinessCreateSerializer(serializers.Serializer[dict[str, str]]):
        name = serializers.CharField(max_length=120)
        slug = serializers.CharField(max_length=42)
        owner_email = serializers.EmailField(required=False)
        reseller = serializers.CharField(
            required=False, help_text="Reseller slug, when you administer several."
        )

    def get_queryset(self) -> QuerySet[Business]:
        return Business.objects.filter(reseller__in=resellers_administered(self.request.user)).order_by(
            "name"
        )

    @extend_schema(responses=BusinessOutput(many=True))
    def get(self, request: Request) -> Response:
        return Response(BusinessOutput(self.get_queryset(), many=True).data)

    @extend_schema(request=BusinessCreateSerializer, responses={201: BusinessOutput})
    def post(self, request: Request) -> Response:
        data = self.BusinessCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reseller = _reseller_for(request, data.validated_data.get("reseller"))
        try:
            business = business_create_with_owner(
                reseller=reseller,
                name=data.validated_data["name"],
                slug=data.validated_data["slug"],
                owner_email=data.validated_data.get("owner_email"),
            )
        except DjangoValidationError as exc:
            raise ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages) from None
        return Response(BusinessOutput(business).data, status=status.HTTP_201_CREATED)
