"""Read-only views of the ledger, and one write path: "Adjust chips", which records a
compensating transfer with a mandatory reason and the admin's identity."""

import uuid

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from core.admin import FilterLookupsOnly, ReadOnlyAdmin
from ledger import services
from ledger.errors import LedgerError
from ledger.models import Account, AccountKind, Transfer

# Corrections go to a player's wallet or the house. A running match's pots and stacks move
# only by play: an adjusted pot would no longer match its antes, which abort refunds read.
ADJUSTABLE_KINDS = (AccountKind.WALLET, AccountKind.HOUSE)


class AdjustChipsForm(forms.Form):
    amount = forms.IntegerField(
        min_value=-services.MAX_ADJUSTMENT,
        max_value=services.MAX_ADJUSTMENT,
        help_text="Signed: positive adds chips (from the issuer), negative removes them.",
    )
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=2000)
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def clean_amount(self) -> int:
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError("Adjust by a non-zero number of chips.")
        return amount

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("A reason is required.")
        return reason


@admin.register(Account)
class AccountAdmin(FilterLookupsOnly, ReadOnlyAdmin):
    list_display = ("id", "kind", "user", "scope", "ref", "balance", "adjust_link")
    list_filter = ("kind",)
    search_fields = ("user__username", "=scope", "=kind")
    list_select_related = ("user",)
    readonly_fields = ("kind", "user", "scope", "ref", "balance", "created_at")
    actions = ["adjust_chips"]

    @admin.display(description="Adjust")
    def adjust_link(self, obj: Account) -> str:
        if obj.kind not in ADJUSTABLE_KINDS:
            return "-"
        url = reverse("admin:ledger_account_adjust", args=[obj.pk])
        return format_html('<a href="{}">Adjust chips</a>', url)

    @admin.action(description="Adjust chips of the selected account")
    def adjust_chips(self, request: HttpRequest, queryset) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one account.", messages.WARNING)
            return None
        url = reverse("admin:ledger_account_adjust", args=[queryset.get().pk])
        return HttpResponseRedirect(url)

    def get_urls(self):
        view = self.admin_site.admin_view(self.adjust_view)
        return [
            path("<int:account_id>/adjust/", view, name="ledger_account_adjust"),
            *super().get_urls(),
        ]

    def adjust_view(self, request: HttpRequest, account_id: int) -> HttpResponse:
        if not request.user.has_perm("ledger.add_transfer") and not request.user.is_superuser:
            raise PermissionDenied
        account = get_object_or_404(Account.objects.select_related("user"), pk=account_id)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Adjust chips: {account}",
            "account": account,
            "opts": self.model._meta,
        }
        if account.kind not in ADJUSTABLE_KINDS:
            context["refusal"] = f"Only wallets and the house are adjusted, not a {account.kind}."
            return TemplateResponse(
                request, "admin/ledger/account/adjust.html", context, status=400
            )
        if request.method == "POST":
            form = AdjustChipsForm(request.POST)
            if form.is_valid():
                try:
                    with transaction.atomic():
                        move = services.adjustment(
                            account=account,
                            amount=form.cleaned_data["amount"],
                            reason=form.cleaned_data["reason"],
                            actor=request.user,
                            idempotency_key=(
                                f"admin-adjustment:{form.cleaned_data['idempotency_key']}"
                            ),
                        )
                        if not move.replayed:  # a double submit moved and records nothing
                            self.adjusted(request, account, move)
                except LedgerError as exc:
                    form.add_error(None, exc.detail)
                else:
                    self.message_user(
                        request,
                        f"Transfer #{move.transfer.pk}: {form.cleaned_data['amount']:+d} chips "
                        f"to {account}.",
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(reverse("admin:ledger_account_changelist"))
        else:
            form = AdjustChipsForm(initial={"idempotency_key": uuid.uuid4().hex})
        context["form"] = form
        return TemplateResponse(request, "admin/ledger/account/adjust.html", context)

    def adjusted(self, request: HttpRequest, account: Account, move: services.Movement) -> None:
        """Runs in the adjustment's transaction; the moderation admin audits it here."""


@admin.register(Transfer)
class TransferAdmin(FilterLookupsOnly, ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "kind",
        "amount",
        "debit",
        "credit",
        "scope",
        "round_number",
        "actor",
    )
    list_filter = ("kind",)
    search_fields = (
        "debit__user__username",
        "credit__user__username",
        "=scope",
        "=kind",
        "=idempotency_key",
    )
    list_select_related = ("debit", "credit", "actor")
    readonly_fields = [f.name for f in Transfer._meta.fields]
    date_hierarchy = "created_at"
