from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.http import HttpRequest

from apps.accounts.models import Invitation, Membership, User


def _operators_only(request: HttpRequest) -> bool:
    """The staff admin lists every reseller's users, memberships and API tokens, so only platform
    operators (superusers) may open it; a staff flag alone (a reseller, a business owner) is not enough.
    Simpler and safer than filtering each admin's querysets per reseller (issue 16, finding 4)."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.is_superuser)


# One admin site serves the public and every business's URLs (xorventa/urls*.py).
admin.site.has_permission = _operators_only  # type: ignore[method-assign]


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "is_staff", "is_active", "date_joined"]
    search_fields = ["email"]
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Profile", {"fields": ("first_name", "last_name", "digest_emails")}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "business", "reseller", "created_at"]
    list_filter = ["role"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["email", "role", "business", "reseller", "created_at", "accepted_at"]
