"""Writes about people: invitations, accepting them, memberships; a new business with its owner invited."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Invitation, Membership, Role, User
from apps.tenants.models import Business, Reseller
from apps.tenants.services import business_create


def invitation_create(
    *,
    email: str,
    role: Role,
    business: Business | None = None,
    reseller: Reseller | None = None,
    invited_by: User | None = None,
    send: bool = True,
) -> Invitation:
    email = _email_clean(email, field="email")
    invitation = Invitation.objects.create(
        email=email, role=role, business=business, reseller=reseller, invited_by=invited_by
    )
    if send:
        transaction.on_commit(lambda: _send_invitation(invitation))
    return invitation


def _email_clean(email: str, *, field: str) -> str:
    email = email.strip().lower()
    if "@" not in email:
        raise ValidationError({field: "Enter a valid email address."})
    return email


def business_create_with_owner(
    *, reseller: Reseller, name: str, slug: str, owner_email: str | None = None
) -> Business:
    """Create a business (``tenants.services.business_create``: its schema and host name) and, given
    ``owner_email``, invite its owner.

    The address is checked before the business is made, so a bad one creates nothing. business_create
    commits the business in a transaction of its own (the schema template is built and committed before
    it, so concurrent creators wait on the template's lock only), so the invitation is not in that
    transaction: should its one insert fail, the business stays and its owner is invited again from the
    console or the reseller API.
    """
    email = _email_clean(owner_email, field="owner_email") if owner_email else None
    business = business_create(reseller=reseller, name=name, slug=slug)
    if email:
        invitation_create(email=email, role=Role.OWNER, business=business)
    return business


def invitation_url(invitation: Invitation) -> str:
    return f"{settings.SITE_URL}/accounts/invite/{invitation.token}/"


def _send_invitation(invitation: Invitation) -> None:
    where = invitation.business or invitation.reseller
    send_mail(
        subject=f"You're invited to {where} on Xorventa",
        message=(
            f"You have been invited as {invitation.get_role_display()} of {where}.\n\n"
            f"Accept it here (new accounts choose a password, existing ones sign in): "
            f"{invitation_url(invitation)}\n\nThe link expires in 14 days."
        ),
        from_email=None,
        recipient_list=[invitation.email],
        fail_silently=True,
    )


def _open_invitation(token: str) -> Invitation:
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None or not invitation.is_open:
        raise ValidationError("This invitation link is invalid or has expired.")
    return invitation


def _invitation_close(invitation: Invitation, user: User) -> None:
    membership_grant(
        user=user, role=Role(invitation.role), business=invitation.business, reseller=invitation.reseller
    )
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_at"])


@transaction.atomic
def invitation_accept_new(*, token: str, password: str) -> User:
    """Accept an invitation by creating the account for its email, with the password chosen now.

    Only for an email that has no account yet: whoever holds the link may choose its password. An
    existing account is never given a password here (that would let anyone who can send an invitation
    take over any account); it joins through ``invitation_accept_existing`` after signing in.
    """
    invitation = _open_invitation(token)
    if User.objects.filter(email=invitation.email).exists():
        raise ValidationError(
            "An account with this email already exists: sign in with its password to accept."
        )
    user = User.objects.create_user(email=invitation.email, password=password)
    _invitation_close(invitation, user)
    return user


@transaction.atomic
def invitation_accept_existing(*, token: str, user: User) -> User:
    """Add the membership to ``user``, who has proved it is the invited account (signed in as it).

    Never changes the account: no password, no flags; only the new membership.
    """
    invitation = _open_invitation(token)
    if not user.is_authenticated or user.email.lower() != invitation.email.lower():
        raise ValidationError(f"This invitation is for {invitation.email}: sign in as that account.")
    _invitation_close(invitation, user)
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


@transaction.atomic
def operator_create(*, email: str, reset_password: bool = False) -> tuple[User, str | None]:
    """A platform operator (staff superuser: the only accounts the staff admin admits) with a random
    password, returned so the caller can show it once; it is stored only as a hash.

    An existing account is left as it is (password ``None``) unless ``reset_password``.
    """
    email = email.strip().lower()
    user = User.objects.filter(email=email).first()
    if user is not None and not reset_password:
        return user, None
    password = secrets.token_urlsafe(15)
    if user is None:
        user = User.objects.create_superuser(email=email, password=password)
    else:
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save(update_fields=["is_staff", "is_superuser", "password"])
    return user, password
