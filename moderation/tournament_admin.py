"""The moderators' view of tournaments (registered for `tournaments.Tournament`, so its
URLs are /admin/tournaments/...): read-only, with its entrants, stages and tables, and
every ledger entry of its prize pool. The one write is the cancel (refunding every
entry), which asks for a reason and goes through `moderation.services`, which audits it."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from core.admin import FilterLookupsOnly
from ledger.selectors import transfers_in_scope
from moderation import services as moderation
from moderation.adminkit import reason_action
from moderation.match_admin import ReadOnlyModelAdmin
from tournaments.models import Entry, Stage, Table, Tournament
from tournaments.money import pool_scope


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("user", "status", "seed", "place", "prize", "last_stage", "registered_at")
    readonly_fields = fields
    ordering = ("place", "seed", "id")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False


class StageInline(admin.TabularInline):
    model = Stage
    fields = ("number", "final", "created_at", "finished_at", "tables")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False

    @admin.display(description="tables (match, status)")
    def tables(self, stage: Stage) -> str:
        rows = Table.objects.filter(stage=stage).select_related("match").order_by("number")
        return format_html_join(
            ", ",
            '<a href="{}">#{} {}</a>',
            (
                (
                    reverse("admin:games_match_change", args=[t.match_id]),
                    t.match_id,
                    t.match.status,
                )
                for t in rows
            ),
        )


@admin.register(Tournament)
class TournamentAdmin(FilterLookupsOnly, ReadOnlyModelAdmin):
    list_display = ("id", "name", "format", "status", "ruleset", "buy_in", "pool", "created_at")
    list_filter = ("status", "format", "ruleset", "created_at")
    search_fields = ("=id", "name", "created_by__username", "entries__user__username")
    date_hierarchy = "created_at"
    list_select_related = ("created_by",)
    inlines = [EntryInline, StageInline]
    readonly_fields = (
        "name",
        "format",
        "status",
        "created_by",
        "ruleset",
        "options",
        "turn_seconds",
        "on_timeout",
        "max_timeouts",
        "rated",
        "table_size",
        "advance",
        "seeding",
        "min_entrants",
        "max_entrants",
        "starts_at",
        "buy_in",
        "fee",
        "bots_allowed",
        "pool",
        "payout",
        "cancel_reason",
        "created_at",
        "started_at",
        "finished_at",
        "ledger_entries",
    )
    actions = ["cancel_tournaments"]

    @admin.display(description="ledger entries of the prize pool")
    def ledger_entries(self, tournament: Tournament) -> str:
        transfers = transfers_in_scope(scope=pool_scope(tournament.pk)).select_related(
            "debit", "credit"
        )
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((t.pk, t.kind, t.debit.label, t.credit.label, t.amount) for t in transfers),
        )
        return format_html(
            "<table><tr><th>#</th><th>kind</th><th>from</th><th>to</th><th>chips</th></tr>"
            "{}</table>",
            rows,
        )

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("moderation.cancel_tournament")

    @admin.action(
        description="Cancel the selected tournaments (refund every entry)",
        permissions=["cancel"],
    )
    def cancel_tournaments(
        self, request: HttpRequest, queryset: QuerySet[Tournament]
    ) -> HttpResponse | None:
        return reason_action(
            self,
            request,
            queryset,
            title="Cancel tournaments",
            done="Cancelled, entries refunded",
            apply=lambda tournament, form: moderation.tournament_cancel(
                tournament_id=tournament.pk,
                moderator=request.user,
                reason=form.cleaned_data["reason"],
            ),
        )
