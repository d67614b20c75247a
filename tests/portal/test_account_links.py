"""Issue 16, finding 3: an invitation never changes an existing account's password.

The attack: the owner of business A invites the email of business B's owner, opens the link and
"accepts" it with a password of their choosing; before the fix that set B's owner's password and
signed the attacker in as them, with B's portal open. Password resets are a separate flow with
short-lived, single-use tokens.
"""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from apps.accounts.models import Invitation, Membership

B_PASSWORD = "pw-Long-enough-1"  # make_user's default: the victim's own password
ATTACKER_PASSWORD = "attacker-Chosen-9"


@pytest.fixture
def invitation_to_b(world, django_capture_on_commit_callbacks) -> Invitation:
    """Sunny's owner (A) invites Brew's owner's email (B) to Sunny through the portal's team page."""
    with django_capture_on_commit_callbacks(execute=True):
        response = world.client(world.owner).post(
            "/t/sunny/team/", {"email": world.other_owner.email, "role": "owner"}
        )
    assert response.status_code == 302
    return Invitation.objects.get(email=world.other_owner.email)


def _signed_in_user_id(client: Client) -> str | None:
    return client.session.get("_auth_user_id")


def test_accepting_with_a_new_password_neither_changes_it_nor_signs_in(world, invitation_to_b):
    attacker = Client()
    url = f"/accounts/invite/{invitation_to_b.token}/"
    page = attacker.get(url)
    assert page.status_code == 200 and b"already has an account" in page.content
    response = attacker.post(url, {"password": ATTACKER_PASSWORD, "password_again": ATTACKER_PASSWORD})
    assert response.status_code == 400
    world.other_owner.refresh_from_db()
    assert world.other_owner.check_password(B_PASSWORD)
    assert not world.other_owner.check_password(ATTACKER_PASSWORD)
    assert _signed_in_user_id(attacker) is None
    assert attacker.get("/t/brew/knowledge/").status_code == 302  # sent to sign in
    assert not Membership.objects.filter(user=world.other_owner, business=world.sunny).exists()
    invitation_to_b.refresh_from_db()
    assert invitation_to_b.accepted_at is None


def test_the_invited_account_accepts_by_signing_in_with_its_own_password(world, invitation_to_b):
    invited = Client()
    url = f"/accounts/invite/{invitation_to_b.token}/"
    response = invited.post(url, {"password": B_PASSWORD})
    assert response.status_code == 302
    assert _signed_in_user_id(invited) == str(world.other_owner.pk)
    assert Membership.objects.filter(user=world.other_owner, business=world.sunny, role="owner").exists()
    world.other_owner.refresh_from_db()
    assert world.other_owner.check_password(B_PASSWORD)
    assert invited.get(url).status_code == 404  # used once


def test_a_signed_in_invited_account_accepts_and_anyone_else_is_refused(world, invitation_to_b):
    url = f"/accounts/invite/{invitation_to_b.token}/"
    someone_else = world.client(world.staff)
    assert someone_else.post(url, {"password": B_PASSWORD}).status_code == 403
    assert not Membership.objects.filter(user=world.other_owner, business=world.sunny).exists()
    assert world.client(world.other_owner).post(url).status_code == 302
    assert Membership.objects.filter(user=world.other_owner, business=world.sunny).exists()


def test_a_new_email_still_chooses_its_password(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        world.client(world.owner).post("/t/sunny/team/", {"email": "new@sunny.example", "role": "staff"})
    token = Invitation.objects.get(email="new@sunny.example").token
    client = Client()
    response = client.post(
        f"/accounts/invite/{token}/", {"password": "a-Long-pass-123", "password_again": "a-Long-pass-123"}
    )
    assert response.status_code == 302 and _signed_in_user_id(client) is not None


def test_password_reset_is_its_own_short_lived_single_use_flow(world, settings):
    assert settings.PASSWORD_RESET_TIMEOUT <= 3600
    client = Client()
    assert b"/accounts/password-reset/" in client.get("/accounts/login/").content
    response = client.post("/accounts/password-reset/", {"email": world.other_owner.email})
    assert response.status_code == 302 and len(mail.outbox) == 1
    assert "Password reset" in mail.outbox[0].subject
    link = re.search(r"https?://[^/\s]+(/accounts/password-reset/[^/\s]+/[^/\s]+/)", mail.outbox[0].body)
    assert link is not None, mail.outbox[0].body
    form_page = client.get(link.group(1), follow=True)  # Django swaps the token for a session key
    assert b"choose a new password" in form_page.content
    new = "a-Fresh-password-42"
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    world.other_owner.refresh_from_db()
    assert world.other_owner.check_password(new)
    again = Client().get(link.group(1), follow=True)
    assert b"invalid, already used or expired" in again.content


def test_account_links_are_limited_per_address(world, invitation_to_b, settings):
    from apps.accounts.views import ACCOUNT_LINKS

    url = f"/accounts/invite/{'x' * 32}/"  # guessing tokens
    guesser = Client(REMOTE_ADDR="203.0.113.7")
    statuses = [guesser.get(url).status_code for _ in range(ACCOUNT_LINKS.count + 1)]
    assert statuses[:-1] == [404] * ACCOUNT_LINKS.count and statuses[-1] == 429
    assert b"Too many attempts" in guesser.get(f"/accounts/invite/{invitation_to_b.token}/").content
    assert guesser.post("/accounts/password-reset/", {"email": "x@example.com"}).status_code == 429
    other = Client(REMOTE_ADDR="198.51.100.9")
    assert other.get(f"/accounts/invite/{invitation_to_b.token}/").status_code == 200
