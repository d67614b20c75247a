"""A reseller's own endpoints (on the main site, with a reseller's key): its businesses (create,
suspend, resume, delete), their owners and invitations, and usage."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.api_keys import api_requests_by_business
from apps.accounts.models import Invitation, Membership, Role
from apps.accounts.services import business_create_with_owner, invitation_create
from apps.api.base import ResellerApiView, input_errors
from apps.portal import selectors
from apps.tenants.models import Business
from apps.tenants.services import business_host, business_remove, business_set_active

TAG = ["reseller"]


class BusinessOut(serializers.ModelSerializer[Business]):
    host = serializers.SerializerMethodField()
    path = serializers.SerializerMethodField(help_text="Path routing: the same business under /t/<slug>/")

    class Meta:
        model = Business
        fields = ["slug", "name", "public_key", "is_active", "host", "path", "created_at"]

    def get_host(self, business: Business) -> str:
        return business_host(business.slug)

    def get_path(self, business: Business) -> str:
        return f"/t/{business.slug}/"


class BusinessIn(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=120)
    slug = serializers.CharField(max_length=42, help_text="3-42 lowercase letters, digits and hyphens")
    owner_email = serializers.EmailField(required=False, help_text="Invited as the business's owner")


class BusinessList(ResellerApiView):
    def get_queryset(self) -> QuerySet[Business]:
        return Business.objects.filter(reseller=self.reseller)

    @extend_schema(tags=TAG, responses=BusinessOut(many=True))
    def get(self, request: Request) -> Response:
        """The reseller's businesses, newest first."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(BusinessOut(page, many=True).data)

    @extend_schema(tags=TAG, request=BusinessIn, responses={201: BusinessOut})
    def post(self, request: Request) -> Response:
        """Create a business: its schema, its address and (optionally) its owner's invitation."""
        data = self.valid(BusinessIn)
        with input_errors():
            business = business_create_with_owner(reseller=self.reseller, **data)
        return Response(BusinessOut(business).data, status=status.HTTP_201_CREATED)


class _OneBusiness(ResellerApiView):
    def business(self, slug: str) -> Business:
        return get_object_or_404(Business, reseller=self.reseller, slug=slug)


class BusinessDetail(_OneBusiness):
    @extend_schema(tags=TAG, responses=BusinessOut)
    def get(self, request: Request, slug: str) -> Response:
        return Response(BusinessOut(self.business(slug)).data)

    @extend_schema(tags=TAG, responses={204: None})
    def delete(self, request: Request, slug: str) -> Response:
        """Delete a suspended business and all of its data, for good."""
        with input_errors():
            business_remove(business=self.business(slug))
        return Response(status=status.HTTP_204_NO_CONTENT)


class BusinessSuspend(_OneBusiness):
    @extend_schema(tags=TAG, request=None, responses=BusinessOut)
    def post(self, request: Request, slug: str) -> Response:
        """Suspend: its portal, widget and API answer 404 until it is resumed; nothing is deleted."""
        return Response(BusinessOut(business_set_active(business=self.business(slug), active=False)).data)


class BusinessResume(_OneBusiness):
    @extend_schema(tags=TAG, request=None, responses=BusinessOut)
    def post(self, request: Request, slug: str) -> Response:
        return Response(BusinessOut(business_set_active(business=self.business(slug), active=True)).data)


class MemberOut(serializers.ModelSerializer[Membership]):
    email = serializers.EmailField(source="user.email")

    class Meta:
        model = Membership
        fields = ["email", "role", "created_at"]


class InvitationOut(serializers.ModelSerializer[Invitation]):
    class Meta:
        model = Invitation
        fields = ["id", "email", "role", "created_at", "expires_at", "accepted_at"]


class TeamOut(serializers.Serializer[Any]):
    members = MemberOut(many=True, help_text="Owners and staff of the business")
    invitations = InvitationOut(many=True, help_text="Open invitations")


# The roles a business's invitation can give (named InviteRoleEnum in the schema: settings.py).
INVITE_ROLES = [(Role.OWNER.value, "Owner"), (Role.STAFF.value, "Staff")]


class InvitationIn(serializers.Serializer[Any]):
    email = serializers.EmailField()
    role = serializers.ChoiceField(choices=INVITE_ROLES, default=Role.OWNER)


class BusinessTeam(_OneBusiness):
    @extend_schema(tags=TAG, responses=TeamOut)
    def get(self, request: Request, slug: str) -> Response:
        """Who can open the business's portal, and who is invited."""
        team = selectors.team(self.business(slug))
        return Response(TeamOut({"members": team.members, "invitations": team.invitations}).data)


class BusinessInvite(_OneBusiness):
    @extend_schema(tags=TAG, request=InvitationIn, responses={201: InvitationOut})
    def post(self, request: Request, slug: str) -> Response:
        """Invite an owner or staff member by email (the link is emailed; it expires in 14 days)."""
        business = self.business(slug)
        data = self.valid(InvitationIn)
        with input_errors():
            invitation = invitation_create(email=data["email"], role=Role(data["role"]), business=business)
        return Response(InvitationOut(invitation).data, status=status.HTTP_201_CREATED)


class UsageOut(serializers.Serializer[Any]):
    slug = serializers.CharField(source="business.slug")
    name = serializers.CharField(source="business.name")
    is_active = serializers.BooleanField(source="business.is_active")
    conversations_30d = serializers.IntegerField()
    answered = serializers.IntegerField(help_text="Replies answered from the knowledge, last 30 days")
    unanswered = serializers.IntegerField(help_text="Replies passed to the owner, last 30 days")
    answered_share = serializers.IntegerField(allow_null=True, help_text="Percent")
    open_gaps = serializers.IntegerField()
    open_disagreements = serializers.IntegerField()
    live_facts = serializers.IntegerField()
    last_sync_at = serializers.DateTimeField(allow_null=True)
    index_status = serializers.CharField()
    healthy = serializers.BooleanField()
    api_requests_30d = serializers.IntegerField(help_text="Requests made to it with API keys, last 30 days")


class Usage(ResellerApiView):
    pagination_class = None

    @extend_schema(tags=TAG, responses=UsageOut(many=True))
    def get(self, request: Request) -> Response:
        """Each business's usage and health over the last 30 days."""
        requests = api_requests_by_business(self.reseller, since=timezone.now() - timedelta(days=30))
        rows = selectors.reseller_businesses(self.reseller)
        for row in rows:
            row.api_requests_30d = requests.get(row.business.slug, 0)  # type: ignore[attr-defined]
        return Response(UsageOut(rows, many=True).data)
