import math
from collections.abc import Callable

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import path

from core.admin import FilterLookupsOnly, ReadOnlyAdmin
from ledger.admin import AccountAdmin
from ledger.models import Account
from ledger.services import Movement
from moderation.adminkit import reason_action
from moderation.models import AuditRecord, PlayerReport, SuspicionReport
from moderation.selectors import MAX_REPORT_DAYS, suspicion_report
from moderation.services import chips_adjust_record, report_resolve

# Registers the match, chat and player admins: moderation's too, as each action is audited.
from . import match_admin, tournament_admin, user_admin  # noqa: F401


@admin.register(AuditRecord)
class AuditRecordAdmin(FilterLookupsOnly, ReadOnlyAdmin):
    """The audit trail: visible to moderators, editable by no one (superusers included)."""

    list_display = (
        "id",
        "created_at",
        "actor",
        "action",
        "target",
        "target_user",
        "match",
        "reason",
    )
    list_filter = ("action", "created_at")
    search_fields = ("actor__username", "target_user__username", "target", "reason", "=match__id")
    list_select_related = ("actor", "target_user", "match")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in AuditRecord._meta.fields]


@admin.register(PlayerReport)
class PlayerReportAdmin(FilterLookupsOnly, ReadOnlyAdmin):
    """Players' reports of each other, open ones first; resolving one asks for a note,
    which goes to the audit trail."""

    list_display = ("id", "created_at", "status", "reported", "reason", "reporter", "match")
    list_filter = ("status", "reason", "created_at")
    search_fields = ("reported__username", "reporter__username", "detail", "=match__id")
    list_select_related = ("reported", "reporter", "match")
    readonly_fields = [f.name for f in PlayerReport._meta.fields]
    actions = ["resolve_reports"]

    def get_ordering(self, request):
        return ["status", "-id"]  # "open" before "resolved"

    def has_resolve_permission(self, request) -> bool:
        return request.user.has_perm("moderation.resolve_report")

    @admin.action(description="Resolve the selected reports", permissions=["resolve"])
    def resolve_reports(self, request, queryset):
        return reason_action(
            self,
            request,
            queryset,
            title="Resolve reports",
            done="Resolved",
            apply=lambda report, form: report_resolve(
                report_id=report.pk, moderator=request.user, reason=form.cleaned_data["reason"]
            ),
        )


def _number(
    request: HttpRequest,
    name: str,
    default: float,
    low: float,
    high: float,
    cast: Callable[[str], float] = int,
) -> float:
    """A report parameter from the query string, clamped to [low, high]; the default
    when it is missing or not a finite number."""
    try:
        value = cast(request.GET.get(name, default))
    except (TypeError, ValueError, OverflowError):
        return default
    if isinstance(value, float) and not math.isfinite(value):
        return default
    return min(max(value, low), high)


@admin.register(SuspicionReport)
class SuspicionReportAdmin(admin.ModelAdmin):
    """Leads to review: chips and wins flowing one way between frequent tablemates (chips
    in matches and tournaments), one winner over many new accounts, and pairs that never
    challenge each other."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_urls(self):
        # The report is the only page: as a proxy of Match, the default object pages would
        # show a match's every field, hidden dice and salts included.
        view = self.admin_site.admin_view(self.changelist_view)
        return [path("", view, name="moderation_suspicionreport_changelist")]

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        params = {
            "days": _number(request, "days", 90, 1, MAX_REPORT_DAYS),
            "min_matches": _number(request, "min_matches", 3, 1, 10**6),
            "min_one_way": _number(request, "min_one_way", 0.8, 0.0, 1.0, float),
            "min_chances": _number(request, "min_chances", 10, 0, 10**6),
            "new_account_matches": _number(
                request, "new_account_matches", settings.RATING_ESTABLISHED_GAMES + 2, 0, 10**6
            ),
            "min_new_accounts": _number(request, "min_new_accounts", 5, 1, 10**6),
        }
        context = {
            **self.admin_site.each_context(request),
            "title": "Suspicion report",
            "report": suspicion_report(**params),
            "params": params,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/moderation/suspicion_report.html", context)


# The ledger's own admin, with every adjustment also written to the audit trail.
admin.site.unregister(Account)


@admin.register(Account)
class AuditedAccountAdmin(AccountAdmin):
    def adjusted(self, request: HttpRequest, account: Account, move: Movement) -> None:
        chips_adjust_record(actor=request.user, account=account, move=move)
