from django.contrib import admin
from django.db import transaction
from django.template.response import TemplateResponse

from config.admin import ReadOnlyAdmin
from ledger.admin import AccountAdmin
from ledger.models import Account, Transfer
from moderation.models import AuditAction, AuditRecord, SuspicionReport
from moderation.selectors import suspicion_report
from moderation.services import audit_record


@admin.register(AuditRecord)
class AuditRecordAdmin(ReadOnlyAdmin):
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


@admin.register(SuspicionReport)
class SuspicionReportAdmin(admin.ModelAdmin):
    """Pairs to review: chips flowing one way between frequent tablemates, and pairs that
    never challenge each other."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_or_change_permission(request):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied

        def number(name, default, cast=int):
            try:
                return cast(request.GET.get(name, default))
            except (TypeError, ValueError):
                return default

        params = {
            "days": number("days", 90),
            "min_matches": number("min_matches", 3),
            "min_one_way": number("min_one_way", 0.8, float),
            "min_chances": number("min_chances", 10),
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
    def adjust_view(self, request, account_id):
        with transaction.atomic():
            response = super().adjust_view(request, account_id)
            key = request.POST.get("idempotency_key")
            if request.method == "POST" and response.status_code == 302 and key:
                move = Transfer.objects.select_related("debit", "credit").get(
                    idempotency_key=f"admin-adjustment:{key}"
                )
                account = move.credit if move.debit.kind == "issuer" else move.debit
                done = AuditRecord.objects.filter(
                    action=AuditAction.CHIPS_ADJUST, details__transfer_id=move.pk
                ).exists()
                if not done:  # a double submit moved nothing and records nothing
                    audit_record(
                        actor=request.user,
                        action=AuditAction.CHIPS_ADJUST,
                        reason=move.reason,
                        target=str(account),
                        target_user=account.user,
                        match=move.match,
                        details={
                            "transfer_id": move.pk,
                            "account_id": account.pk,
                            "amount": move.amount if account.pk == move.credit_id else -move.amount,
                        },
                    )
        return response
