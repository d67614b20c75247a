"""The one access gate: who may reach which business or reseller.

Schemas separate tenants from each other; they do not separate people. Every view, API and consumer
that acts for a signed-in person goes through these functions. A refusal is a 404, never a 403, so a
member of one business cannot even learn that another business exists.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from apps.accounts.models import Membership, Role, User
from apps.tenants.models import Business, Reseller

BUSINESS_ROLES_ALL = frozenset({Role.OWNER, Role.STAFF, Role.RESELLER_ADMIN})
BUSINESS_ROLES_MANAGE = frozenset({Role.OWNER, Role.RESELLER_ADMIN})


def business_role(user: User | AnonymousUser, business: Business) -> Role | None:
    """The role ``user`` holds over ``business``: direct membership, or admin of its reseller."""
    if not user.is_authenticated:
        return None
    direct = (
        Membership.objects.filter(user_id=user.pk, business_id=business.pk)
        .values_list("role", flat=True)
        .first()
    )
    if direct:
        return Role(direct)
    if Membership.objects.filter(
        user_id=user.pk, reseller_id=business.reseller_id, role=Role.RESELLER_ADMIN
    ).exists():
        return Role.RESELLER_ADMIN
    return None


def access_business(
    user: User | AnonymousUser, business: Business, *, roles: frozenset[Role] = BUSINESS_ROLES_ALL
) -> Role:
    role = business_role(user, business)
    if role is None or role not in roles:
        raise Http404("No such business.")
    return role


def resellers_administered(user: User | AnonymousUser) -> list[Reseller]:
    if not user.is_authenticated:
        return []
    return list(Reseller.objects.filter(membership__user_id=user.pk, membership__role=Role.RESELLER_ADMIN))


def access_reseller(user: User | AnonymousUser, reseller: Reseller) -> Reseller:
    if (
        not user.is_authenticated
        or not Membership.objects.filter(
            user_id=user.pk, reseller_id=reseller.pk, role=Role.RESELLER_ADMIN
        ).exists()
    ):
        raise Http404("No such reseller.")
    return reseller


def businesses_for_user(user: User | AnonymousUser) -> list[Business]:
    """Every business the person can open: their own, and all of the resellers they administer."""
    if not user.is_authenticated:
        return []
    direct = Business.objects.filter(membership__user_id=user.pk)
    via_reseller = Business.objects.filter(
        reseller__membership__user_id=user.pk, reseller__membership__role=Role.RESELLER_ADMIN
    )
    return list((direct | via_reseller).distinct().order_by("name"))
