"""Signing in, invitations and password resets.

Sign-in goes through django-axes (lockout by account and by address, settings.AXES_*). The links
that carry a token (an invitation, a password reset) and the reset request are also limited per
address (``ACCOUNT_LINKS``), since axes only counts calls to authenticate().
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.decorators import method_decorator

from apps.accounts.access import business_role, businesses_for_user, resellers_administered
from apps.accounts.models import Invitation, User
from apps.accounts.services import invitation_accept_existing, invitation_accept_new
from apps.tenants.rate_limits import Limit, limit_exceeded

ACCOUNT_LINKS = Limit("account-links", settings.XORVENTA_RATE_ACCOUNT_LINKS_PER_15MIN, 15 * 60)


def per_address_limit(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Refuse with 429 once an address has opened too many account links in the window."""

    @wraps(view)
    def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if limit_exceeded(ACCOUNT_LINKS, request.META.get("REMOTE_ADDR", "") or "unknown"):
            response = render(request, "accounts/rate_limited.html", status=429)
            response["Retry-After"] = str(ACCOUNT_LINKS.seconds)
            return response
        return view(request, *args, **kwargs)

    return limited


class AcceptInvitationForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, min_length=8)
    password_again = forms.CharField(widget=forms.PasswordInput)

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("password") != data.get("password_again"):
            raise ValidationError("The two passwords differ.")
        validate_password(str(data.get("password", "")))
        return data


def landing_url(request: HttpRequest, user: User) -> str:
    """Where a person lands after signing in (when no safe ``next`` says otherwise).

    Signed in on a business's own address (its host or /t/<slug>/): that business's dashboard, when
    they may open it. On the public site: a reseller's console; the one business they can open; or,
    with several, the public home page, which lists them to choose from.
    """
    business = getattr(request, "tenant", None)
    if business is not None and business_role(user, business) is not None:
        return f"{getattr(request, 'tenant_prefix', '')}/"
    if business is None and resellers_administered(user):
        return reverse("console:home")
    businesses = businesses_for_user(user)
    if len(businesses) == 1:
        # By path, on the host the person signed in on: the session cookie is that host's.
        return f"/{settings.TENANT_SUBFOLDER_PREFIX}/{businesses[0].slug}/"
    return "/"


class LoginView(auth_views.LoginView):
    """Django's sign-in (a ``next`` is followed only when url_has_allowed_host_and_scheme accepts
    it), landing on the person's own page instead of the fixed LOGIN_REDIRECT_URL."""

    template_name = "accounts/login.html"

    def get_default_redirect_url(self) -> str:
        return landing_url(self.request, self.request.user)  # type: ignore[arg-type]


@per_address_limit
def accept_invitation(request: HttpRequest, token: str) -> HttpResponse:
    invitation = Invitation.objects.filter(token=token).select_related("business", "reseller").first()
    if invitation is None or not invitation.is_open:
        return render(request, "accounts/invitation_invalid.html", status=404)
    if User.objects.filter(email=invitation.email).exists():
        return _accept_as_existing(request, invitation)
    form = AcceptInvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = invitation_accept_new(token=token, password=form.cleaned_data["password"])
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(landing_url(request, user))
    return render(request, "accounts/accept_invitation.html", {"form": form, "invitation": invitation})


def _accept_as_existing(request: HttpRequest, invitation: Invitation) -> HttpResponse:
    """The invited email has an account: it joins after proving it is that account (its own password,
    checked by authenticate() and so by axes, or an existing session as that user)."""
    context: dict[str, Any] = {"invitation": invitation}
    signed_in_as_invited = (
        request.user.is_authenticated and request.user.email.lower() == invitation.email.lower()
    )
    if request.user.is_authenticated and not signed_in_as_invited:
        context["signed_in_as"] = request.user.email
        return render(request, "accounts/accept_invitation_sign_in.html", context, status=403)
    form = None
    if request.method == "POST":
        user: Any = request.user
        if not signed_in_as_invited:
            data = request.POST.copy()
            data["username"] = invitation.email  # the invited account, whatever was posted
            form = AuthenticationForm(request, data=data)
            user = form.get_user() if form.is_valid() else None
        if user is not None:
            try:
                invitation_accept_existing(token=invitation.token, user=user)
            except ValidationError as exc:
                context["error"] = exc.messages[0]
            else:
                if not signed_in_as_invited:
                    login(request, user)
                return redirect(landing_url(request, user))
    context["form"] = form
    context["signed_in"] = signed_in_as_invited
    status = 400 if form is not None and form.errors else 200
    return render(request, "accounts/accept_invitation_sign_in.html", context, status=status)


# Password reset: Django's own views (signed, single-use tokens that expire after
# settings.PASSWORD_RESET_TIMEOUT), with this site's templates and the per-address limit.
@method_decorator(per_address_limit, name="dispatch")
class PasswordResetView(auth_views.PasswordResetView):
    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")
    extra_context = extra_email_context = {"timeout_hours": max(1, settings.PASSWORD_RESET_TIMEOUT // 3600)}


@method_decorator(per_address_limit, name="dispatch")
class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")
