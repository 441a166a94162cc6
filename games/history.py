"""Reads of finished play: a player's matches, and a finished match exported whole (rules,
seats, every round's dice and salts, every action, every die in structured form with the
commitments published, results), enough for `engine.replay` to rebuild it exactly and for
a third party to check it (docs/API.md, "The dice of an export")."""

from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import User
from games import engine
from games.dice_log import dice_record
from games.errors import MatchNotFinished, NotExportable
from games.models import Match, MatchAction, MatchEvent, RoundRecord, Seat
from games.selectors import match_get
from games.services.table import player_ref
from games.stakes import match_transfers

EXPORT_FORMAT = "liarsdice-match/1"


def player_matches(
    *, player: User, viewer: User | None, ruleset: str | None = None, status: str | None = None
) -> QuerySet[Match]:
    """The matches `player` sat at, newest first: public ones, and private ones only when
    `viewer` sat there too."""
    matches = Match.objects.filter(seats__player=player)
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    matches = matches.filter(
        Q(private=False) | Q(pk__in=Seat.objects.filter(player_id=viewer_id).values("match_id"))
    )
    if ruleset:
        matches = matches.filter(ruleset=ruleset)
    if status:
        matches = matches.filter(status=status)
    return matches.select_related("created_by").order_by("-id")


def match_export(*, match_id: int, user: User) -> dict[str, Any]:
    """A finished match in full (`MatchNotFound` when `user` may not see it,
    `MatchNotFinished` until it is finished)."""
    match = match_get(match_id=match_id, user=user)
    if match.status != Match.Status.FINISHED:
        raise MatchNotFinished(f"Match {match.pk} is {match.status}; only finished ones export.")
    state = engine.state_from_json(match.state)
    actions = list(
        MatchAction.objects.filter(match=match).order_by("number").values_list("action", flat=True)
    )
    if len(actions) != state.version:
        # Finished before the server kept its actions: the dice alone cannot rebuild it.
        raise NotExportable(f"Match {match.pk} finished before its actions were recorded.")
    seats = list(match.seats.select_related("player").order_by("seat"))
    rounds = list(
        RoundRecord.objects.filter(match=match).order_by("number").values_list("record", flat=True)
    )
    committed = MatchEvent.objects.filter(match=match, type="dice_committed").order_by("seq")
    # The engine drew a seat for the first opener (common pool `random`) or player one
    # (poker dice, none named) before any die.
    drawn = match.rules.get("first_opener") == "random" or (
        match.family == "poker_dice" and match.opener_seat is None
    )
    return {
        "format": EXPORT_FORMAT,
        "id": match.pk,
        "ruleset": match.ruleset,
        "family": match.family,
        "rules": match.rules,
        "buy_in": match.buy_in,
        "ante": match.ante,
        "turn_seconds": match.turn_seconds,
        "created_at": match.created_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "seats": [
            {
                "seat": s.seat,
                "player": player_ref(s.player),
                "status": s.status,
            }
            for s in seats
        ],
        "replay": {
            "n_players": state.n_players,
            "creator_seat": state.creator_seat,
            "opener_seat": match.opener_seat,
            "rolls": list(state.rolls),
            "actions": actions,
        },
        "rounds": rounds,
        "dice": dice_record(
            family=match.family,
            opener_draw=rounds[0]["opener_seat"] if drawn else None,
            rounds=rounds,
            log=actions,
            committed=list(committed.values_list("data", flat=True)),
        ),
        "result": {
            "winner_seats": list(match.winner_seats),
            "placements": {str(k): v for k, v in engine.placements(state).items()},
        },
        "chips": [
            {
                "from": t.debit.label,
                "to": t.credit.label,
                "amount": t.amount,
                "kind": t.kind,
                "round": t.round_number,
            }
            for t in match_transfers(match)
        ],
    }
