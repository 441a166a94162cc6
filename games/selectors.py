"""Reads for matches. Every view of a match goes through the engine's `view_for`, the
one place that decides what a seat may see."""

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import BigIntegerField, Count, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import RatedOpponent, User
from accounts.rating_scale import shown_rating
from core.payloads import render, timestamp
from core.prebuilt import PrebuiltSelect, select_together
from games import engine, stakes
from games.errors import MatchNotFound
from games.models import ChatMessage, Match, MatchEvent, RoundRecord, Seat
from games.shapes import MATCH, ROUNDS, MatchSummaryOutput
from games.stakes import table_balances
from ledger.models import Account, AccountKind

# Every view of a match reads these: their SQL is built once (core.prebuilt).
_MATCH = PrebuiltSelect(Match, "WHERE m.id = %s", related="created_by")
_SEATS = PrebuiltSelect(Seat, "WHERE m.match_id = %s ORDER BY m.seat", related="player")


def seats_with_players(match: Match) -> list[Seat]:
    """The match's seats in order, with their players."""
    return _SEATS.all([match.pk])


def match_places(match: Match) -> dict[int, int]:
    """Each seat's final place (1 = best, ties share) in a finished match; empty for a
    match that did not finish by play (open, running or aborted)."""
    if match.status != Match.Status.FINISHED:
        return {}
    return {
        int(seat): place
        for seat, place in engine.placements(engine.state_from_json(match.state)).items()
    }


def match_get(*, match_id: int, user: User) -> Match:
    """A match the user may look at: any public one, a private one only when seated."""
    match = _MATCH.one([match_id])
    if match is None:
        raise MatchNotFound(f"No match {match_id}.")
    if match.private and not match.seats.filter(player_id=user.pk).exists():
        raise MatchNotFound(f"No match {match_id}.")
    return match


def match_with_seats(*, match_id: int, user: User) -> tuple[Match, list[Seat]]:
    """`match_get` and its seats with their players, read in one round trip."""
    matches, seats = select_together((_MATCH, [match_id]), (_SEATS, [match_id]))
    if not matches or not match_visible(matches[0], seats, user):
        raise MatchNotFound(f"No match {match_id}.")
    return matches[0], seats


def match_visible(match: Match, seats: list[Seat], user: User) -> bool:
    """Whether `user` may see `match`, whose `seats` are loaded: any public match, a
    private one only when seated."""
    return not match.private or any(s.player_id == user.pk for s in seats)


def match_list(
    *,
    user: User,
    status: str | None = None,
    mine: bool = False,
    ruleset: str | None = None,
    players: int | None = None,
    buy_in_min: int | None = None,
    buy_in_max: int | None = None,
) -> QuerySet[Match]:
    """The matches `user` may list, newest first, narrowed by the filters given: their
    status, the user's own, the preset, the table's size, the buy-in's range."""
    matches = Match.objects.select_related("created_by").order_by("-id")
    if mine:
        matches = matches.filter(seats__player=user)
    else:
        # Private tables are listed only to the players seated at them.
        matches = matches.filter(Q(private=False) | Q(seats__player=user)).distinct()
    filters = {
        "status": status,
        "ruleset": ruleset,
        "max_players": players,
        "buy_in__gte": buy_in_min,
        "buy_in__lte": buy_in_max,
    }
    return matches.filter(**{k: v for k, v in filters.items() if v is not None})


def match_summary(match: Match, seats: list[Seat]) -> dict[str, Any]:
    return render(MatchSummaryOutput, match, players=[s.player for s in seats])


def match_view(
    *,
    match: Match,
    user: User | None,
    seats: list[Seat] | None = None,
    state: "engine.State | None" = None,
) -> dict[str, Any]:
    """The match as `user` may see it (a seated player, or a spectator), in its family's
    `Match` shape (`games.shapes`). `seats` and `state`, when a service has just loaded
    them (its `MatchChange`), are reused."""
    seats = seats or seats_with_players(match)
    your = next((s.seat for s in seats if user is not None and s.player_id == user.pk), None)
    balances = {"stacks": {}, "round": 0, "game": 0}
    if match.buy_in:
        balances = table_balances(match)

    if state is None and match.state:
        state = engine.state_from_json(match.state)
    view = engine.view_for(state, your) if state is not None else None
    engine_seats = {e["seat"]: e for e in view["seats"]} if view else {}
    rules = match.rules
    seat_views = []
    for s in seats:
        entry = engine_seats.get(s.seat, {})
        seat_views.append(
            {
                "seat": s.seat,
                "player": s.player,
                # Each family's view gives one of these; before the start, its rules do.
                "dice_count": entry.get("dice_count", rules.get("dice_per_player")),
                "lives": entry.get("lives", rules.get("lives")),
                "stack": balances["stacks"].get(s.pk, 0),
                "status": s.status,
            }
        )

    round_view = None
    last_round = view["last_round"] if view else None
    if view and view["round"] is not None and match.status == Match.Status.ABORTED:
        # The round in play when a moderator aborted: recorded in full, like any ended one.
        last_round = (
            RoundRecord.objects.filter(match=match)
            .order_by("-number")
            .values_list("record", flat=True)
            .first()
        ) or last_round
    elif view and view["round"] is not None:
        round_view = dict(view["round"])
        round_view["turn_deadline"] = match.turn_deadline
        round_view["pots"] = {"round": balances["round"], "game": balances["game"]}
        round_view["dice_commitments"] = (match.secrets or {}).get("commitments", {})

    legal = []
    if state is not None and match.status == Match.Status.ACTIVE:
        legal = engine.legal_actions(state, your)
    return render(
        MATCH.serializers[match.family],
        match,
        id=match.pk,
        invite_code=match.invite_code if user and match.created_by_id == user.pk else None,
        seats=seat_views,
        round=round_view,
        last_round=last_round,
        your_seat=your,
        legal_actions=legal,
        abort_proposal=_abort_proposal_view(match, state),
        rematch_offer=_rematch_offer_view(match),
        aborted=_abort_outcome(match),
        results=_results(match, seats, state),
        unrated_reason=_unrated_reason(match, seats),
    )


def _results(match: Match, seats: list[Seat], state: "engine.State | None") -> list[dict] | None:
    """Each seat's place, chips won or lost and rating change, once the match finished."""
    if match.status != Match.Status.FINISHED or state is None:
        return None
    places = engine.placements(state)
    chips = stakes.chips_won_by_seat(match)
    results = []
    for s in seats:
        change = s.rating_change or {}
        before, after = change.get("before"), change.get("after")
        results.append(
            {
                "seat": s.seat,
                "place": places[str(s.seat)],
                "chips": chips.get(s.seat, 0),
                "rating_before": before and shown_rating(before["mu"], before["sigma"]),
                "rating_after": after and shown_rating(after["mu"], after["sigma"]),
                # Changes written before issue 33 were applied in full.
                "rating_weight": change.get("weight", 1.0) if change else None,
            }
        )
    return results


def _unrated_reason(match: Match, seats: list[Seat]) -> str | None:
    """Why a finished match moved no rating (`Match.Unrated`), else None. Matches that
    finished before the reason was kept: casual, or unrated because not played."""
    if match.status != Match.Status.FINISHED:
        return None
    if match.unrated_reason:
        return match.unrated_reason
    if not match.rated:
        return Match.Unrated.CASUAL
    return None if any(s.rating_change for s in seats) else Match.Unrated.NOT_PLAYED


def abort_proposal_standing(match: Match, state: "engine.State | None") -> dict | None:
    """A running match's abort proposal (`{"round", "seats"}`) while the round it was
    made in is in play (it lapses when that round ends), else None."""
    proposal = match.abort_proposal
    if not proposal or match.status != Match.Status.ACTIVE or state is None:
        return None
    return proposal if proposal["round"] == engine.round_number(state) else None


def rematch_offer_standing(match: Match) -> dict | None:
    """A finished match's rematch offer (`{"seats", "expires_at"}`) until it is taken
    up or expires, else None."""
    offer = match.rematch_offer
    if not offer or match.rematch_id is not None:
        return None
    return offer if datetime.fromisoformat(offer["expires_at"]) > timezone.now() else None


def _abort_proposal_view(match: Match, state: "engine.State | None") -> dict | None:
    proposal = abort_proposal_standing(match, state)
    return proposal and {"round": proposal["round"], "agreed_seats": proposal["seats"]}


def _abort_outcome(match: Match) -> dict | None:
    """An aborted match's reason and refunds, as its `match_aborted` event gave them."""
    if match.status != Match.Status.ABORTED:
        return None
    data = (
        MatchEvent.objects.filter(match=match, type="match_aborted")
        .values_list("data", flat=True)
        .first()
    )
    data = data or {}
    return {"reason": data.get("reason", ""), "refunds": data.get("refunds", {})}


def _rematch_offer_view(match: Match) -> dict | None:
    offer = rematch_offer_standing(match)
    return offer and {"accepted_seats": offer["seats"], "expires_at": offer["expires_at"]}


def hidden_dice(*, match: Match) -> dict[str, Any] | None:
    """The current round's dice of every seat (the poker box), from the engine state:
    what no player may see. None when no round is in play. Callers check permissions
    and audit the look."""
    if not match.state:
        return None
    state = engine.state_from_json(match.state)
    if engine.current_seat(state) is None:
        return None
    return {"round": engine.round_number(state), "dice": engine.held_dice(state)}


# Every long poll's answer and stream page reads it (its SQL built once: core.prebuilt).
_EVENTS_AFTER = PrebuiltSelect(
    MatchEvent, "WHERE m.match_id = %s AND m.seq > %s ORDER BY m.seq LIMIT %s"
)


def events_after(*, match: Match, after: int, limit: int = 200) -> list[dict[str, Any]]:
    return [
        {"seq": e.seq, "type": e.type, "data": e.data, "created_at": timestamp(e.created_at)}
        for e in _EVENTS_AFTER.all([match.pk, after, limit])
    ]


def rounds_list(*, match: Match, user: User | None) -> dict[str, Any]:
    finished = list(
        RoundRecord.objects.filter(match=match).order_by("number").values_list("record", flat=True)
    )
    current = match_view(match=match, user=user)["round"]
    return render(ROUNDS.serializers[match.family], None, rounds=finished, current=current)


def messages_visible(*, match: Match) -> QuerySet[ChatMessage]:
    return (
        ChatMessage.objects.filter(match=match, hidden_at__isnull=True)
        .select_related("author")
        .order_by("-id")
    )


def leaderboard(*, by: str, ruleset: str | None = None) -> QuerySet[User]:
    """Players by chips in their wallet or by rating (the conservative mu - 3 sigma),
    overall or, with `ruleset`, in that preset (docs/API.md, "Leaderboard").

    By chips: only players who chose to show their balance (`show_chips`); balances are
    private otherwise. By rating: only players with `LEADERBOARD_MIN_GAMES` rated matches
    in the scope, against `LEADERBOARD_MIN_OPPONENTS` distinct opponents who were
    established when met (`accounts.RatedOpponent`), so a rating farmed from fresh
    accounts is never listed."""
    players = User.objects.filter(is_active=True, is_staff=False)
    if by == "chips":
        # Never null (the rank cursor pages by score): an account without a wallet has 0.
        wallet = Account.objects.filter(kind=AccountKind.WALLET, user_id=OuterRef("pk"))
        score = Coalesce(Subquery(wallet.values("balance")[:1]), 0, output_field=BigIntegerField())
        players = players.filter(show_chips=True).annotate(score=score)
        return players.order_by(F("score").desc(), "id")
    if ruleset:
        players = players.filter(ratings__ruleset=ruleset).annotate(
            mu=F("ratings__mu"), sigma=F("ratings__sigma"), games=F("ratings__games")
        )
    else:
        players = players.annotate(
            mu=F("rating_mu"), sigma=F("rating_sigma"), games=F("games_played")
        )
    met = (
        RatedOpponent.objects.filter(
            user_id=OuterRef("pk"), ruleset=ruleset or RatedOpponent.OVERALL
        )
        .order_by()
        .values("user_id")
        .annotate(n=Count("opponent_id"))
        .values("n")
    )
    return (
        players.annotate(opponents=Coalesce(Subquery(met), 0))
        .filter(
            games__gte=settings.LEADERBOARD_MIN_GAMES,
            opponents__gte=settings.LEADERBOARD_MIN_OPPONENTS,
        )
        .annotate(score=F("mu") - 3 * F("sigma"))
        .order_by(F("score").desc(), "id")
    )
