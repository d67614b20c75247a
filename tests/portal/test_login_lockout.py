"""Issue 16, finding 5: sign-in is throttled by account and by address (django-axes).

The attack, as the outside tester ran it: 60 wrong passwords for one account through the real sign-in
URL; before the fix every one was answered and the right password then worked at once.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

PASSWORD = "pw-Long-enough-1"  # make_user's default
ATTACKER = "203.0.113.7"


def _sign_in(email: str, password: str, address: str) -> object:
    return Client(REMOTE_ADDR=address).post("/accounts/login/", {"username": email, "password": password})


@pytest.fixture
def victim(world):
    return world.other_owner


def test_sixty_wrong_passwords_lock_the_account_and_the_address(world, victim):
    limit = settings.AXES_FAILURE_LIMIT
    assert settings.AXES_ENABLED and limit < 60
    statuses = [_sign_in(victim.email, f"guess-{i}", ATTACKER).status_code for i in range(60)]
    assert statuses[: limit - 1] == [200] * (limit - 1)  # "didn't match", the form again
    assert set(statuses[limit:]) == {429}
    locked = _sign_in(victim.email, PASSWORD, ATTACKER)  # the right password, too late
    assert locked.status_code == 429 and b"Sign-in locked" in locked.content
    assert b"even with the right password" in locked.content
    # By account: the right password from another address is refused as well...
    assert _sign_in(victim.email, PASSWORD, "198.51.100.20").status_code == 429
    # ...and by address: another account from the attacker's address.
    assert _sign_in(world.owner.email, PASSWORD, ATTACKER).status_code == 429
    # Another account from another address is unaffected.
    assert _sign_in(world.owner.email, PASSWORD, "198.51.100.21").status_code == 302
    # Changing the case of the email does not dodge the account's count.
    assert _sign_in(victim.email.upper(), PASSWORD, "198.51.100.22").status_code == 429


def test_the_invitation_sign_in_counts_against_the_same_lock(
    world, victim, django_capture_on_commit_callbacks
):
    from apps.accounts.models import Invitation

    with django_capture_on_commit_callbacks(execute=True):
        world.client(world.owner).post("/t/sunny/team/", {"email": victim.email, "role": "staff"})
    url = f"/accounts/invite/{Invitation.objects.get(email=victim.email).token}/"
    attacker = Client(REMOTE_ADDR=ATTACKER)
    for i in range(settings.AXES_FAILURE_LIMIT):
        attacker.post(url, {"password": f"guess-{i}"})
    refused = Client(REMOTE_ADDR="198.51.100.30").post(url, {"password": PASSWORD})
    assert refused.status_code == 429 and b"Sign-in locked" in refused.content
    assert not victim.memberships.filter(business=world.sunny).exists()


def test_staff_unlock_the_account_and_the_address(world, victim):
    for i in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(victim.email, f"guess-{i}", ATTACKER)
    assert _sign_in(victim.email, PASSWORD, "198.51.100.40").status_code == 429
    # The operator sees the lock in the admin (axes' access attempts) and lifts it.
    operator = world.client(_operator())
    assert victim.email.encode() in operator.get("/admin/axes/accessattempt/").content
    call_command("axes_reset_username", victim.email)
    assert _sign_in(victim.email, PASSWORD, "198.51.100.40").status_code == 302
    # An address that sprayed many accounts is locked for all of them, and unlocked by address.
    for i in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(f"someone-{i}@example.com", "guess", ATTACKER)
    assert _sign_in(world.owner.email, PASSWORD, ATTACKER).status_code == 429
    call_command("axes_reset_ip", ATTACKER)
    assert _sign_in(world.owner.email, PASSWORD, ATTACKER).status_code == 302


def _operator():
    from apps.accounts.models import User

    return User.objects.create_superuser(email="ops@example.com", password="x-Long-password-1")
