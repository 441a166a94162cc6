from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """For append-only records: viewable, never added, changed or deleted in the admin."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


# The lookups Django's own list filters and date hierarchy put in a changelist URL (a
# related field's filter: `<field>__id__exact`).
_FILTER_SUFFIXES = frozenset(
    {"exact", "isnull", "isempty", "gte", "lt", "year", "month", "day", "id"}
)


class FilterLookupsOnly:
    """Refuses every changelist query-string lookup but those of `list_filter` and
    `date_hierarchy`. Django allows any lookup on a model's own fields by default, so
    `?state__round__dice__1__0__startswith=6` would let a viewer probe hidden dice (or
    salts, invite codes, password and token hashes) one guess at a time; a refused lookup
    raises `DisallowedModelAdminLookup`, which Django answers with a 400."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        paths = [self.date_hierarchy] if self.date_hierarchy else []
        for item in self.get_list_filter(request):
            if isinstance(item, type) and issubclass(item, admin.SimpleListFilter):
                if lookup == item.parameter_name:
                    return True
            else:
                paths.append(item[0] if isinstance(item, (tuple, list)) else item)
        for path in paths:
            suffix = lookup.removeprefix(f"{path}__")
            if suffix != lookup and set(suffix.split("__")) <= _FILTER_SUFFIXES:
                return True
        return False
