"""The moderators' view of matches and chat (registered for `games.Match` and
`games.ChatMessage`, so its URLs are /admin/games/...). Everything is read-only; the writes are the
moderation actions (abort, force a timeout, hide a message), each asking for a reason
and going through `moderation.services`, which writes the audit record."""

import json
from datetime import timedelta

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from core.admin import FilterLookupsOnly
from games import stakes
from games.models import ChatMessage, Match, MatchEvent, RoundRecord, Seat
from moderation import services as moderation
from moderation.adminkit import reason_action
from moderation.match_pages import round_rows, seat_names, seat_results

HIDDEN_DICE_PERMISSION = "moderation.view_hidden_dice"
# A running match this far past its turn deadline has lost its timeout: the sweep and
# the timeout task should have moved it on long before.
STUCK_AFTER = timedelta(minutes=1)
# The list's timestamps, short enough for the whole row to fit 1280 px.
SHORT_TIME = "%m-%d\u00a0%H:%M"  # a no-break space: one line each


class ReadOnlyModelAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class HasBotsFilter(admin.SimpleListFilter):
    title = "bots"
    parameter_name = "has_bots"

    def lookups(self, request, model_admin):
        return [("yes", "with bots"), ("no", "humans only")]

    def queryset(self, request, queryset):
        bots = Exists(Seat.objects.filter(match=OuterRef("pk"), played_as_bot=True))
        if self.value() == "yes":
            return queryset.filter(bots)
        if self.value() == "no":
            return queryset.exclude(bots)
        return queryset


class StuckFilter(admin.SimpleListFilter):
    title = "turn"
    parameter_name = "turn"

    def lookups(self, request, model_admin):
        return [("stuck", f"stuck (deadline passed {STUCK_AFTER.seconds // 60}+ min ago)")]

    def queryset(self, request, queryset):
        if self.value() == "stuck":
            return queryset.filter(
                status=Match.Status.ACTIVE, turn_deadline__lt=timezone.now() - STUCK_AFTER
            )
        return queryset


def short_time(moment) -> str:
    return timezone.localtime(moment).strftime(SHORT_TIME) if moment else "-"


@admin.register(Match)
class MatchAdmin(FilterLookupsOnly, ReadOnlyModelAdmin):
    list_display = (
        "id",
        "ruleset",
        "status",
        "players",
        "stakes",
        "created",
        "last_move",
        "finished",
    )
    list_filter = (
        "status",
        StuckFilter,
        "ruleset",
        "family",
        HasBotsFilter,
        "private",
        "created_at",
    )
    search_fields = ("=id", "seats__player__username", "created_by__username")
    date_hierarchy = "created_at"
    list_select_related = ("created_by",)
    list_per_page = 50
    # The outcome, seats and rounds come first (the template); the settings fold away.
    fieldsets = (
        (None, {"fields": (("status", "ruleset", "buy_in", "ante", "private"),)}),
        (
            "Settings and timing",
            {
                "classes": ("collapse",),
                "fields": (
                    "family",
                    "rules",
                    "created_by",
                    "max_players",
                    "turn_seconds",
                    "on_timeout",
                    "max_timeouts",
                    "version",
                    "turn_seat",
                    "turn_deadline",
                    "winner_seats",
                    "created_at",
                    "started_at",
                    "finished_at",
                ),
            },
        ),
    )
    readonly_fields = (
        "status",
        "ruleset",
        "buy_in",
        "ante",
        "private",
        *fieldsets[1][1]["fields"],
    )
    change_form_template = "admin/games/match/change_form.html"
    actions = ["abort_matches", "force_turn_timeouts"]

    def get_queryset(self, request):
        last_event = MatchEvent.objects.filter(match=OuterRef("pk")).order_by("-seq")
        return (
            super()
            .get_queryset(request)
            .prefetch_related("seats__player")
            .annotate(last_move_at=Subquery(last_event.values("created_at")[:1]))
        )

    def get_search_results(self, request, queryset, search_term):
        queryset, _duplicates = super().get_search_results(request, queryset, search_term)
        return queryset.distinct() if search_term else queryset, False

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        return ", ".join(seat_names(sorted(match.seats.all(), key=lambda s: s.seat)).values())

    @admin.display(description="buy-in / ante")
    def stakes(self, match: Match) -> str:
        return f"{match.buy_in} / {match.ante}"

    @admin.display(description="created", ordering="created_at")
    def created(self, match: Match) -> str:
        return short_time(match.created_at)

    @admin.display(description="last move", ordering="last_move_at")
    def last_move(self, match: Match) -> str:
        return short_time(match.last_move_at)

    @admin.display(description="finished", ordering="finished_at")
    def finished(self, match: Match) -> str:
        return short_time(match.finished_at)

    # --- actions ---

    def has_abort_permission(self, request) -> bool:
        return request.user.has_perm("moderation.abort_match")

    def has_force_timeout_permission(self, request) -> bool:
        return request.user.has_perm("moderation.force_timeout")

    @admin.action(description="Abort the selected matches (refund chips)", permissions=["abort"])
    def abort_matches(self, request, queryset):
        return reason_action(
            self,
            request,
            queryset,
            title="Abort matches",
            done="Aborted, chips refunded",
            apply=lambda match, form: moderation.match_abort(
                match_id=match.pk, moderator=request.user, reason=form.cleaned_data["reason"]
            ),
        )

    @admin.action(
        description="Force the timeout of the current turn", permissions=["force_timeout"]
    )
    def force_turn_timeouts(self, request, queryset):
        return reason_action(
            self,
            request,
            queryset,
            title="Force turn timeouts",
            done="Timeout policy applied",
            apply=lambda match, form: moderation.turn_force_timeout(
                match_id=match.pk, moderator=request.user, reason=form.cleaned_data["reason"]
            ),
        )

    # --- the detail page: rounds, events, chat, chips ---

    def get_urls(self):
        view = self.admin_site.admin_view(self.hidden_dice_view)
        return [
            path("<int:match_id>/hidden-dice/", view, name="games_match_hidden_dice"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # None for a malformed id ("abc") as for a missing one: Django then redirects.
        match = self.get_object(request, unquote(object_id))
        if match is not None:
            extra_context = {**(extra_context or {}), **self._detail(request, match)}
        return super().change_view(request, object_id, form_url, extra_context)

    def _detail(self, request: HttpRequest, match: Match) -> dict:
        seats = list(match.seats.select_related("player").order_by("seat"))
        balances = stakes.table_balances(match)
        running = match.status in (Match.Status.OPEN, Match.Status.ACTIVE)
        transfers = stakes.match_transfers(match)
        names = seat_names(seats)
        rounds = RoundRecord.objects.filter(match=match).order_by("number")
        return {
            "seat_results": seat_results(
                match, seats, transfers, balances["stacks"] if running else {}
            ),
            "winners": [names.get(str(n), f"seat {n}") for n in match.winner_seats or []],
            "pots": balances["pots"],
            "rounds": round_rows(rounds, names),
            "events": [
                (e, json.dumps(e.data, separators=(", ", ": ")))
                for e in MatchEvent.objects.filter(match=match).order_by("seq")
            ],
            "chat": list(ChatMessage.objects.filter(match=match).select_related("author")),
            "transfers": transfers,
            "can_abort": running and self.has_abort_permission(request),
            "can_force_timeout": match.status == Match.Status.ACTIVE
            and self.has_force_timeout_permission(request),
            "can_view_hidden_dice": match.status == Match.Status.ACTIVE
            and request.user.has_perm(HIDDEN_DICE_PERMISSION),
            "hidden_dice_url": reverse("admin:games_match_hidden_dice", args=[match.pk]),
            "changelist_url": reverse("admin:games_match_changelist"),
            "audit": list(match.moderation_records.select_related("actor").order_by("-id")[:50]),
        }

    def hidden_dice_view(self, request: HttpRequest, match_id: int) -> HttpResponse:
        """The current round's unrevealed dice; each view is audited."""
        if not request.user.has_perm(HIDDEN_DICE_PERMISSION):
            raise PermissionDenied
        match = get_object_or_404(Match, pk=match_id)
        dice = moderation.hidden_dice_view(match=match, viewer=request.user)
        seats = {
            str(s.seat): s.player for s in match.seats.select_related("player").order_by("seat")
        }
        context = {
            **self.admin_site.each_context(request),
            "title": f"Hidden dice: {match}",
            "match": match,
            "dice": dice,
            "seat_players": seats,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/games/match/hidden_dice.html", context)


class HiddenFilter(admin.SimpleListFilter):
    title = "visibility"
    parameter_name = "hidden"

    def lookups(self, request, model_admin):
        return [("no", "visible"), ("yes", "hidden")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(hidden_at__isnull=self.value() == "no")
        return queryset


@admin.register(ChatMessage)
class ChatMessageAdmin(FilterLookupsOnly, ReadOnlyModelAdmin):
    list_display = (
        "id",
        "created_at",
        "match_link",
        "author",
        "text",
        "hidden_at",
        "hidden_reason",
    )
    list_filter = (HiddenFilter, "created_at")
    search_fields = ("text", "author__username", "=match__id")
    list_select_related = ("author", "match")
    date_hierarchy = "created_at"
    readonly_fields = ("match", "author", "text", "created_at", "hidden_at", "hidden_reason")
    actions = ["hide_messages"]

    @admin.display(description="match")
    def match_link(self, message: ChatMessage) -> str:
        url = reverse("admin:games_match_change", args=[message.match_id])
        return format_html('<a href="{}">{}</a>', url, message.match_id)

    def has_hide_permission(self, request) -> bool:
        return request.user.has_perm("moderation.hide_message")

    @admin.action(description="Hide the selected messages", permissions=["hide"])
    def hide_messages(self, request, queryset):
        return reason_action(
            self,
            request,
            queryset,
            title="Hide messages",
            done="Hidden",
            apply=lambda message, form: moderation.message_hide(
                message_id=message.pk, moderator=request.user, reason=form.cleaned_data["reason"]
            ),
        )
