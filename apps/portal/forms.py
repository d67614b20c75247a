"""Forms of the portal and the console: they parse and validate; the services decide and write.

Two settings forms (widget, white-label) save a settings row directly: the row *is* the settings, and
there is no rule to apply beyond the validation here.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError

from apps.accounts.models import Role
from apps.chat.models import WidgetSettings
from apps.chat.origins import normalise_origin
from apps.facts.models import SyncSchedule, Visibility
from apps.tenants.models import Reseller

COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


def _check_color(value: str) -> str:
    if not COLOR_RE.match(value or ""):
        raise ValidationError("Use a colour like #2255aa.")
    return value.lower()


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%Y-%m-%d", **kwargs)


class ColorInput(forms.TextInput):
    input_type = "color"


class FactForm(forms.Form):
    """Add a fact; with dates it is temporary (e.g. holiday hours) and the usual fact comes back after."""

    topic = forms.CharField(
        max_length=120,
        help_text="What it is about, e.g. Opening hours. Reuse a topic to keep related facts together.",
        widget=forms.TextInput(attrs={"list": "topic-names", "autocomplete": "off"}),
    )
    statement = forms.CharField(
        max_length=1000,
        help_text="One detail, in a sentence, e.g. We open at 8 AM on Saturdays.",
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    valid_from = forms.DateField(
        required=False, label="From (optional)", widget=DateInput(), help_text="Temporary facts: first day."
    )
    valid_to = forms.DateField(
        required=False, label="Until (optional)", widget=DateInput(), help_text="Temporary facts: last day."
    )
    visibility = forms.ChoiceField(
        choices=Visibility.choices, initial=Visibility.PUBLIC, label="Who may see it"
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("valid_from"), data.get("valid_to")
        if start and end and start > end:
            raise ValidationError("The fact ends before it starts: check the dates.")
        return data


class ReplaceForm(forms.Form):
    """Edit by replacing: the old fact is retired (kept in the history) and the new one takes its place."""

    statement = forms.CharField(
        label="New wording", max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )
    valid_from = forms.DateField(required=False, label="From (optional)", widget=DateInput())
    valid_to = forms.DateField(required=False, label="Until (optional)", widget=DateInput())

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("valid_from"), data.get("valid_to")
        if start and end and start > end:
            raise ValidationError("The fact ends before it starts: check the dates.")
        return data


class RetireForm(forms.Form):
    reason = forms.CharField(
        label="Why is it no longer true?", max_length=300, help_text="Kept with the fact's history."
    )


class RestoreForm(forms.Form):
    reason = forms.CharField(label="Why restore it? (optional)", max_length=300, required=False)


class ResolveForm(forms.Form):
    decision = forms.ChoiceField(choices=[("accept", "Accept"), ("dismiss", "Dismiss")])


class AnswerForm(forms.Form):
    answer = forms.CharField(
        label="Your answer", max_length=2000, widget=forms.Textarea(attrs={"rows": 2}), strip=True
    )


class DismissForm(forms.Form):
    reason = forms.CharField(label="Reason (optional)", max_length=200, required=False)


class WebsiteForm(forms.Form):
    start_url = forms.CharField(
        label="Website address",
        max_length=500,
        required=False,
        help_text="The page the reading starts from, e.g. https://www.example.com/",
        widget=forms.TextInput(attrs={"inputmode": "url", "autocomplete": "url"}),
    )
    schedule = forms.ChoiceField(label="Read it again", choices=SyncSchedule.choices)
    max_pages = forms.IntegerField(label="At most this many pages", min_value=1, max_value=500)
    max_depth = forms.IntegerField(label="Links deep from the start page", min_value=0, max_value=10)


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Document",
        help_text="PDF, Word (.docx), HTML, Markdown or plain text; the same name updates it.",
    )
    visibility = forms.ChoiceField(
        choices=Visibility.choices, initial=Visibility.PUBLIC, label="Who may see it"
    )


class InviteForm(forms.Form):
    email = forms.EmailField(label="Email address", widget=forms.EmailInput(attrs={"autocomplete": "off"}))
    role = forms.ChoiceField(
        choices=[
            (Role.STAFF.value, "Staff (knowledge, questions, conversations)"),
            (Role.OWNER.value, "Owner"),
        ],
        initial=Role.STAFF.value,
    )


class AllowedSiteForm(forms.Form):
    origin = forms.CharField(
        label="Your site's address",
        max_length=300,
        help_text="Where the widget will show, e.g. https://www.example.com",
        widget=forms.TextInput(attrs={"inputmode": "url", "autocomplete": "url", "spellcheck": "false"}),
    )

    def clean_origin(self) -> str:
        raw = self.cleaned_data["origin"].strip()
        # An owner pastes the page they are on ("https://www.example.com/contact"): its origin is meant.
        parts = urlsplit(raw if "://" in raw else f"https://{raw}")
        normalised = normalise_origin(f"{parts.scheme}://{parts.netloc}") if parts.netloc else None
        if normalised is None:
            raise ValidationError(f"{raw!r} is not a web address such as https://www.example.com.")
        return normalised


class WidgetSettingsForm(forms.ModelForm):
    allowed_origins = forms.CharField(
        label="Sites that may show the widget",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text="One per line, e.g. https://www.example.com or https://*.example.com for its subdomains.",
    )

    class Meta:
        model = WidgetSettings
        fields = [
            "display_name",
            "primary_color",
            "greeting",
            "allowed_origins",
            "lead_capture_text",
            "show_sources",
        ]
        labels = {
            "display_name": "Name shown in the widget",
            "primary_color": "Colour",
            "greeting": "Greeting",
            "lead_capture_text": "Asking for contact details",
            "show_sources": "Show where each answer comes from",
        }
        widgets = {
            "primary_color": ColorInput(),
            "greeting": forms.TextInput(),
            "lead_capture_text": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound and self.instance.pk:
            self.initial["allowed_origins"] = "\n".join(self.instance.allowed_origins or [])

    def clean_primary_color(self) -> str:
        return _check_color(self.cleaned_data.get("primary_color", ""))

    def clean_allowed_origins(self) -> list[str]:
        raw = [line.strip() for line in (self.cleaned_data.get("allowed_origins") or "").splitlines()]
        origins: list[str] = []
        bad: list[str] = []
        for line in filter(None, raw):
            normalised = normalise_origin(line)
            if normalised is None:
                bad.append(line)
            elif normalised not in origins:
                origins.append(normalised)
        if bad:
            raise ValidationError(
                "Not a site address (scheme and host only, like https://www.example.com): " + ", ".join(bad)
            )
        return origins


class BusinessCreateForm(forms.Form):
    name = forms.CharField(label="Business name", max_length=120)
    slug = forms.CharField(
        label="Address",
        max_length=42,
        help_text="Lowercase letters, digits and hyphens, e.g. sunny-bakery: the portal is then at /t/sunny-bakery/.",
        widget=forms.TextInput(attrs={"autocapitalize": "none", "spellcheck": "false"}),
    )
    owner_email = forms.EmailField(
        label="Owner's email (optional)",
        required=False,
        help_text="They get an invitation to set a password.",
    )


class BrandingForm(forms.ModelForm):
    class Meta:
        model = Reseller
        fields = ["product_name", "logo_url", "primary_color", "show_powered_by"]
        labels = {
            "product_name": "Product name",
            "logo_url": "Logo address (optional)",
            "primary_color": "Colour",
            "show_powered_by": 'Show "powered by" in the widget',
        }
        help_texts = {
            "product_name": "Shown in the portal and the widget instead of Xorventa.",
            "logo_url": "An image on your own server, e.g. /static/agency-logo.svg or https://agency.example/logo.svg",
        }
        widgets = {"primary_color": ColorInput()}

    def clean_primary_color(self) -> str:
        return _check_color(self.cleaned_data.get("primary_color", ""))

    def clean_logo_url(self) -> str:
        value = (self.cleaned_data.get("logo_url") or "").strip()
        if value and not (value.startswith(("https://", "http://")) or value.startswith("/")):
            raise ValidationError("Use an address starting with https:// or /.")
        if any(ch in value for ch in "\"'<> "):
            raise ValidationError("The address contains characters that are not allowed.")
        return value

    def clean_product_name(self) -> str:
        value = " ".join((self.cleaned_data.get("product_name") or "").split())
        if not value:
            raise ValidationError("Give the product a name.")
        return value
