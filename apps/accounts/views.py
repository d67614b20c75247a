from __future__ import annotations

from django import forms
from django.contrib.auth import login
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from apps.accounts.models import Invitation
from apps.accounts.services import invitation_accept


class AcceptInvitationForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, min_length=8)
    password_again = forms.CharField(widget=forms.PasswordInput)

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("password") != data.get("password_again"):
            raise ValidationError("The two passwords differ.")
        validate_password(str(data.get("password", "")))
        return data


def accept_invitation(request: HttpRequest, token: str) -> HttpResponse:
    invitation = Invitation.objects.filter(token=token).select_related("business", "reseller").first()
    if invitation is None or not invitation.is_open:
        return render(request, "accounts/invitation_invalid.html", status=404)
    form = AcceptInvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = invitation_accept(token=token, password=form.cleaned_data["password"])
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("/")
    return render(request, "accounts/accept_invitation.html", {"form": form, "invitation": invitation})
