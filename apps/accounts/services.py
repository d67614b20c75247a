"""Writes about people: invitations, accepting them, memberships."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Invitation, Membership, Role, User
from apps.tenants.models import Business, Reseller


def invitation_create(
    *,
    email: str,
    role: Role,
    business: Business | None = None,
    reseller: Reseller | None = None,
    invited_by: User | None = None,
    send: bool = True,
) -> Invitation:
    email = email.strip().lower()
    if "@" not in email:
        raise ValidationError({"email": "Enter a valid email address."})
    invitation = Invitation.objects.create(
        email=email, role=role, business=business, reseller=reseller, invited_by=invited_by
    )
    if send:
        transaction.on_commit(lambda: _send_invitation(invitation))
    return invitation


def invitation_url(invitation: Invitation) -> str:
    return f"{settings.SITE_URL}/accounts/invite/{invitation.token}/"


def _send_invitation(invitation: Invitation) -> None:
    where = invitation.business or invitation.reseller
    send_mail(
        subject=f"You're invited to {where} on Xorventa",
        message=(
            f"You have been invited as {invitation.get_role_display()} of {where}.\n\n"
            f"Set your password here: {invitation_url(invitation)}\n\nThe link expires in 14 days."
        ),
        from_email=None,
        recipient_list=[invitation.email],
        fail_silently=True,
    )


@transaction.atomic
def invitation_accept(*, token: str, password: str) -> User:
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None or not invitation.is_open:
        raise ValidationError("This invitation link is invalid or has expired.")
    user = User.objects.filter(email=invitation.email).first()
    if user is None:
        user = User.objects.create_user(email=invitation.email, password=password)
    else:
        user.set_password(password)
        user.save(update_fields=["password"])
    membership_grant(
        user=user, role=Role(invitation.role), business=invitation.business, reseller=invitation.reseller
    )
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_at"])
    return user


def membership_grant(
    *, user: User, role: Role, business: Business | None = None, reseller: Reseller | None = None
) -> Membership:
    if role == Role.RESELLER_ADMIN:
        membership, _ = Membership.objects.update_or_create(
            user=user, reseller=reseller, defaults={"role": role}
        )
    else:
        membership, _ = Membership.objects.update_or_create(
            user=user, business=business, defaults={"role": role}
        )
    return membership
