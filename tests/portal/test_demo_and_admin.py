"""Issue 16, finding 4: demo logins only in development, the demo reseller is not staff, operators get
random passwords, and the staff admin is for operators only.

Before the fix `up` seeded the demo whatever DEBUG said, and the demo reseller (password printed in the
README) was a platform superuser: the staff admin listed every reseller's users and API tokens.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.authtoken.models import Token

from apps.accounts.models import User
from lab.demo import DEMO_OWNER_PASSWORD, DEMO_RESELLER_EMAIL, demo_enabled

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def light_demo(monkeypatch):
    """The demo's accounts and business without its content (crawl, knowledge, conversations: ~30 s,
    tested in test_portal_forms). Its website, if served, on a free port; what `up` names for its
    children is restored afterwards."""
    for module, name in (
        ("lab.demo_knowledge", "demo_knowledge_seed"),
        ("lab.demo_site", "demo_crawl_seed"),
        ("lab.demo_conversations", "demo_conversations_seed"),
    ):
        monkeypatch.setattr(f"{module}.{name}", lambda business, log=print, **options: 0)
    monkeypatch.setenv("XORVENTA_DEMO_SITE_PORT", "0")
    monkeypatch.setenv("XORVENTA_OUTBOUND_LOCAL_SERVERS", "")


def test_no_demo_logins_in_production_unless_asked(settings, tenant_schema_template, db):
    settings.DEBUG, settings.XORVENTA_DEMO = False, False
    assert not demo_enabled()
    with pytest.raises(CommandError, match="DEBUG=1, XORVENTA_DEMO=1 or --force"):
        call_command("seed_demo")
    assert not User.objects.exists()
    assert demo_enabled(asked=True)
    settings.XORVENTA_DEMO = True
    assert demo_enabled()
    settings.DEBUG, settings.XORVENTA_DEMO = True, False
    assert demo_enabled()


def test_demo_reseller_is_not_staff_and_an_old_staff_one_is_demoted(light_demo, tenant_schema_template, db):
    User.objects.create_superuser(email=DEMO_RESELLER_EMAIL, password=DEMO_OWNER_PASSWORD)  # as seeded before
    call_command("seed_demo", force=True)
    reseller = User.objects.get(email=DEMO_RESELLER_EMAIL)
    assert not reseller.is_staff and not reseller.is_superuser
    assert not User.objects.filter(is_staff=True).exists()
    assert not User.objects.filter(is_superuser=True).exists()


def test_up_seeds_the_demo_only_through_the_lab_signal(light_demo, settings, tenant_schema_template, db):
    """`manage.py up` (a product command) imports nothing from lab: it sends local_run_prepared, and the
    lab app's receiver seeds the demo and gives the banner its logins, only when the demo is enabled."""
    from apps.portal.signals import local_run_prepared
    from apps.tenants.models import Business

    settings.DEBUG, settings.XORVENTA_DEMO = False, False
    replies = local_run_prepared.send(sender=None, asked_demo=False, port=8000, log=print)
    assert [lines for _receiver, lines in replies] == [[]] and not Business.objects.exists()
    replies = local_run_prepared.send(sender=None, asked_demo=True, port=8000, log=print)
    (banner,) = [lines for _receiver, lines in replies]
    assert f"Reseller login         {DEMO_RESELLER_EMAIL} / {DEMO_OWNER_PASSWORD} (not staff)" in banner
    assert any(line.startswith("Staff admin login      operator@demo.example / ") for line in banner)
    site = next(line for line in banner if line.startswith("Its own website"))
    assert "http://127.0.0.1:" in site and "Try, in the widget on its website:" in banner
    assert Business.objects.filter(slug="sunny").exists()


def test_the_product_runs_without_the_lab():
    """A deployment (DEBUG off, no XORVENTA_LAB) does not install lab, and the product's checks pass."""
    import os
    import subprocess
    import sys

    # Set, not removed: a developer's .env (DEBUG=1) fills in only what the environment leaves unset.
    env = dict(os.environ, XORVENTA_LAB="0", XORVENTA_DEMO="0", DEBUG="0")
    code = "import django; django.setup(); from django.conf import settings; print(settings.INSTALLED_APPS)"
    root = README.parent
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env=dict(env, DJANGO_SETTINGS_MODULE="xorventa.settings"),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'apps.portal'" in done.stdout and "'lab'" not in done.stdout
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_operator_gets_a_random_password_once_and_it_opens_the_admin(capsys, db):
    call_command("create_operator", "ops@example.com")
    password = re.search(r"password (\S+)", capsys.readouterr().out).group(1)
    assert len(password) >= 16 and password not in README.read_text()
    call_command("create_operator", "ops@example.com")
    assert "password" not in capsys.readouterr().out.split("already exists")[0]
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "ops@example.com", "password": password}
    )
    assert response.status_code == 302 and client.get("/admin/accounts/user/").status_code == 200
    call_command("create_operator", "ops@example.com", "--reset-password")
    assert password not in capsys.readouterr().out
    assert not User.objects.get(email="ops@example.com").check_password(password)


def test_readme_publishes_no_staff_password():
    text = README.read_text()
    assert "also staff" not in text
    reseller_line = next(line for line in text.splitlines() if DEMO_RESELLER_EMAIL in line)
    assert "not staff" in reseller_line
    assert "create_operator" in text


def test_a_staff_reseller_cannot_see_other_resellers_users_or_tokens(make_user, reseller, db):
    from apps.tenants.services import reseller_create

    other = reseller_create(name="Other Agency", slug="other")
    victim = make_user("admin@other.example", role="reseller_admin", reseller=other)
    Token.objects.create(user=victim)
    agency = make_user("admin@acme.example", role="reseller_admin", reseller=reseller)
    agency.is_staff = True  # as if a staff flag were ever given to a reseller, with view rights
    agency.save()
    agency.user_permissions.set(
        Permission.objects.filter(codename__in=["view_user", "view_tokenproxy", "view_membership"])
    )
    client = Client()
    client.force_login(agency)
    for url in (
        "/admin/",
        "/admin/accounts/user/",
        "/admin/authtoken/tokenproxy/",
        "/admin/accounts/membership/",
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
        assert b"admin@other.example" not in response.content
    operator = User.objects.create_superuser(email="ops@example.com", password="x-Long-password-1")
    client.force_login(operator)
    assert b"admin@other.example" in client.get("/admin/accounts/user/").content
