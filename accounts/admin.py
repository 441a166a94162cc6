"""API tokens for staff. The player admin (search, balance, ban, mute) is moderation's:
`moderation/user_admin.py`, at the same URLs (/admin/accounts/user/)."""

from django.contrib import admin

from accounts.models import ApiToken
from core.admin import FilterLookupsOnly


@admin.register(ApiToken)
class ApiTokenAdmin(FilterLookupsOnly, admin.ModelAdmin):
    list_display = ("prefix", "user", "created_at", "expires_at", "revoked_at")
    search_fields = ("user__username", "prefix")
    readonly_fields = ("user", "prefix", "created_at", "expires_at", "revoked_at")
    exclude = ("key_hash",)

    def has_add_permission(self, request) -> bool:
        return False
