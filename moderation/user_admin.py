"""The player admin for moderators (it lives here, not in `accounts`, because its actions
are moderation's); registered for `accounts.User`, so its URLs are /admin/accounts/user/."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from accounts.models import User
from core.admin import FilterLookupsOnly
from ledger.models import Account, AccountKind
from ledger.selectors import transfers_for_wallet, wallet_get
from ledger.serializers import transaction_payload
from moderation import services as moderation
from moderation.adminkit import MuteForm, reason_action

RECENT_TRANSFERS = 20
# Changed only by the audited actions (ban, mute) or by play: never typed in, not even by
# a superuser, so every change to them has an audit record or a match behind it.
MODERATED_FIELDS = (
    "is_active",
    "chat_muted_until",
    "is_bot",
    "bot_strategy",
    "games_played",
    "games_won",
    "rating_mu",
    "rating_sigma",
)


class BannedFilter(admin.SimpleListFilter):
    title = "banned"
    parameter_name = "banned"

    def lookups(self, request, model_admin):
        return [("yes", "banned"), ("no", "active")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(is_active=self.value() == "no")
        return queryset


class MutedFilter(admin.SimpleListFilter):
    title = "muted"
    parameter_name = "muted"

    def lookups(self, request, model_admin):
        return [("yes", "muted now")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(chat_muted_until__gt=timezone.now())
        return queryset


def _match_link(match_id: int | None) -> str:
    if match_id is None:
        return ""
    url = reverse("admin:games_match_change", args=[match_id])
    return format_html('<a href="{}">match {}</a>', url, match_id)


@admin.register(User)
class UserAdmin(FilterLookupsOnly, DjangoUserAdmin):
    """Players for moderators (search, stats, balance, recent transfers, ban, mute);
    superusers also manage staff here. Moderators have view permission only: every
    change they make is an action with a reason, audited. Superusers edit names, email,
    password and staff rights here; bans, mutes and play statistics stay read-only."""

    list_display = (
        "username",
        "is_bot",
        "games_played",
        "games_won",
        "rating_display",
        "balance",
        "is_active",
        "chat_muted_until",
        "is_staff",
    )
    list_filter = ("is_bot", BannedFilter, MutedFilter, "is_staff", "date_joined")
    search_fields = ("username", "email", "=id")
    # What a moderator looks for first (play, chips, history), then the account itself.
    fieldsets = (
        (
            "Player",
            {
                "fields": (
                    "is_bot",
                    "bot_strategy",
                    "games_played",
                    "games_won",
                    "rating_mu",
                    "rating_sigma",
                    "chat_muted_until",
                )
            },
        ),
        (
            "Chips and moderation",
            {"fields": ("balance", "recent_transfers", "moderation_history")},
        ),
        (None, {"fields": ("username", "password")}),
        *(
            (name, {**options, "classes": ("collapse",)})
            for name, options in DjangoUserAdmin.fieldsets[1:]
        ),
    )
    actions = ["ban_players", "unban_players", "mute_players", "unmute_players"]

    def get_queryset(self, request):
        wallet = Account.objects.filter(kind=AccountKind.WALLET, user_id=OuterRef("pk"))
        return (
            super().get_queryset(request).annotate(_balance=Subquery(wallet.values("balance")[:1]))
        )

    def get_readonly_fields(self, request, obj=None):
        computed = ("balance", "recent_transfers", "moderation_history", *MODERATED_FIELDS)
        if request.user.is_superuser:
            return computed
        # Staff without superuser rights never edit accounts here, staff ones least of all.
        return (*computed, *(f for _, o in self.get_fieldsets(request, obj) for f in o["fields"]))

    def get_fieldsets(self, request, obj=None):
        if obj is None:  # the add form
            return super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return self.fieldsets
        # Read-only, the password field would show its hash: moderators never see it.
        return tuple(
            (name, {**options, "fields": tuple(f for f in options["fields"] if f != "password")})
            for name, options in self.fieldsets
        )

    def has_change_permission(self, request, obj=None) -> bool:
        if obj is not None and (obj.is_staff or obj.is_superuser) and not request.user.is_superuser:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_superuser and super().has_delete_permission(request, obj)

    @admin.display(description="rating", ordering="rating_mu")
    def rating_display(self, user: User) -> float:
        return user.rating

    @admin.display(description="wallet", ordering="_balance")
    def balance(self, user: User) -> int:
        value = getattr(user, "_balance", None)
        return value if value is not None else 0

    @admin.display(description="recent transfers")
    def recent_transfers(self, user: User) -> str:
        """The wallet's latest transfers, signed as the API signs them (into the wallet
        positive): the wallet is the user's wallet account, not whichever account of the
        first row is theirs, as a seat's stack is the user's too."""
        wallet = wallet_get(user=user)
        rows = list(transfers_for_wallet(user=user)[:RECENT_TRANSFERS])
        if wallet is None or not rows:
            return "none"
        link = reverse("admin:ledger_transfer_changelist") + f"?q={user.username}"
        entries = (transaction_payload(t, wallet_id=wallet.pk) for t in rows)
        body = format_html_join(
            "",
            '<tr><td>{}</td><td>{}</td><td class="chips">{}</td><td class="chips">{}</td>'
            "<td>{}</td><td>{}</td></tr>",
            (
                (
                    e["created_at"].strftime("%Y-%m-%d %H:%M"),
                    e["kind"],
                    f"{e['amount']:+d}",
                    e["balance_after"],
                    _match_link(e["match_id"]),
                    e["reason"],
                )
                for e in entries
            ),
        )
        return format_html(
            '<table id="recent-transfers"><tr><th>When</th><th>Kind</th><th>Chips</th>'
            "<th>Wallet after</th><th>Match</th><th>Reason</th></tr>{}</table>"
            '<a href="{}">all transfers</a>',
            body,
            link,
        )

    @admin.display(description="moderation history")
    def moderation_history(self, user: User) -> str:
        records = user.moderation_records.select_related("actor").order_by("-id")[:20]
        if not records:
            return "none"
        return format_html_join(
            "",
            "<div>{} · {} · {} · {}</div>",
            (
                (
                    r.created_at.strftime("%Y-%m-%d %H:%M"),
                    r.actor.username,
                    r.get_action_display(),
                    r.reason,
                )
                for r in records
            ),
        )

    # --- moderation actions ---

    def has_ban_permission(self, request) -> bool:
        return request.user.has_perm("moderation.ban_player")

    def has_mute_permission(self, request) -> bool:
        return request.user.has_perm("moderation.mute_player")

    def _act(self, request, queryset, service, title, done, form_class=None, **extra):
        def apply(player, form):
            kwargs = {"user_id": player.pk, "moderator": request.user}
            kwargs["reason"] = form.cleaned_data["reason"]
            if form_class is MuteForm:
                kwargs["until"] = form.until()
            return service(**kwargs)

        options = {"form_class": form_class} if form_class else {}
        return reason_action(
            self, request, queryset, title=title, done=done, apply=apply, **options
        )

    @admin.action(description="Ban the selected players", permissions=["ban"])
    def ban_players(self, request, queryset):
        return self._act(request, queryset, moderation.player_ban, "Ban players", "Banned")

    @admin.action(description="Unban the selected players", permissions=["ban"])
    def unban_players(self, request, queryset):
        return self._act(request, queryset, moderation.player_unban, "Unban players", "Unbanned")

    @admin.action(description="Mute the selected players in chat", permissions=["mute"])
    def mute_players(self, request, queryset):
        return self._act(
            request, queryset, moderation.player_mute, "Mute players", "Muted", MuteForm
        )

    @admin.action(description="Unmute the selected players", permissions=["mute"])
    def unmute_players(self, request, queryset):
        return self._act(request, queryset, moderation.player_unmute, "Unmute players", "Unmuted")
