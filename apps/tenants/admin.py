from django.contrib import admin
from django_tenants.admin import TenantAdminMixin

from apps.tenants.models import Business, Domain, Reseller


@admin.register(Reseller)
class ResellerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "product_name", "show_powered_by", "created_at"]


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 0


@admin.register(Business)
class BusinessAdmin(TenantAdminMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "reseller", "schema_name", "is_active", "created_at"]
    list_filter = ["reseller", "is_active"]
    inlines = [DomainInline]
    readonly_fields = ["schema_name", "public_key"]
