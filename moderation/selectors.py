"""Reads for moderators: the suspicion report and the audit trail.

The report looks at finished matches of human players (the server's bots sit with
everyone, so they are left out) over a recent window and lists, for review:
* chip dumping: pairs who often sit together and whose chips flow one way. A player's
  result in a match is what came back to their wallet minus what left it (buy-in versus
  cash-out and refunds); in each match the losers' chips are shared out among the
  winners in proportion to what each won, which is exact for a two-player match.
* win farming, at any stake (zero-stake matches too, where no chip moves but ratings
  and win counts do): pairs who often sit together where one nearly always loses to
  the other.
* soft play: pairs who had many chances to challenge each other (one acted right after
  the other's bid) and never did.
Nothing here is proof; it is a list of things to look at.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import combinations

from django.db.models import Sum
from django.utils import timezone

from accounts.models import User
from games.models import Match, RoundRecord, Seat
from games.stakes import transfers_of_matches
from ledger.models import AccountKind

# The longest window the report looks back over (ten years; far more would overflow the
# date arithmetic).
MAX_REPORT_DAYS = 3650


@dataclass
class PairFlow:
    """What flowed between two players who sat together: chips (dumping), or matches
    lost by one to the other (win farming)."""

    a: User
    b: User
    matches_together: int
    a_to_b: int  # chips (or wins) that flowed from a to b
    b_to_a: int

    @property
    def net(self) -> int:
        return self.a_to_b - self.b_to_a

    @property
    def one_way(self) -> float:
        """1.0 when every chip flowed the same way, 0.0 when the flows balance."""
        total = self.a_to_b + self.b_to_a
        return abs(self.net) / total if total else 0.0


@dataclass
class PairChallenges:
    a: User
    b: User
    matches_together: int
    chances: int  # times one acted right after the other's bid
    challenges: int  # times one challenged the other
    a_challenge_rate: float  # how often `a` challenges anyone when they can
    b_challenge_rate: float


@dataclass
class SuspicionReport:
    since: object
    matches: int
    dumping: list[PairFlow] = field(default_factory=list)
    win_farming: list[PairFlow] = field(default_factory=list)
    soft_play: list[PairChallenges] = field(default_factory=list)


def _matches_in_window(since) -> dict[int, dict[int, int]]:
    """{match_id: {seat number: player id}} of finished matches of two or more humans."""
    seats = (
        Seat.objects.filter(
            match__status=Match.Status.FINISHED,
            match__finished_at__gte=since,
            player__bot_strategy="",
        )
        .values_list("match_id", "seat", "player_id")
        .order_by("match_id", "seat")
    )
    tables: dict[int, dict[int, int]] = defaultdict(dict)
    for match_id, seat, player_id in seats:
        tables[match_id][seat] = player_id
    return {m: t for m, t in tables.items() if len(t) >= 2}


def _results(match_ids: list[int]) -> dict[int, dict[int, int]]:
    """{match_id: {player id: chips won (+) or lost (-)}}, from wallet transfers."""
    results: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    base = transfers_of_matches(match_ids)
    for match_id, user_id, total in (
        base.filter(credit__kind=AccountKind.WALLET)
        .values_list("match_id", "credit__user_id")
        .annotate(total=Sum("amount"))
    ):
        results[match_id][user_id] += total
    for match_id, user_id, total in (
        base.filter(debit__kind=AccountKind.WALLET)
        .values_list("match_id", "debit__user_id")
        .annotate(total=Sum("amount"))
    ):
        results[match_id][user_id] -= total
    return results


def _flows(tables, results) -> dict[tuple[int, int], int]:
    """{(from, to): chips}: each match's losses shared among its winners pro rata."""
    flows: dict[tuple[int, int], int] = defaultdict(int)
    for match_id, table in tables.items():
        result = results.get(match_id, {})
        players = set(table.values())
        won = {p: result.get(p, 0) for p in players if result.get(p, 0) > 0}
        gains = sum(won.values())
        if not gains:
            continue
        for loser in players:
            lost = -result.get(loser, 0)
            if lost <= 0:
                continue
            for winner, amount in won.items():
                flows[(loser, winner)] += round(lost * amount / gains)
    return flows


def _win_flows(tables) -> dict[tuple[int, int], int]:
    """{(loser, winner): matches}: every player a match's winners beat, at any stake."""
    winners = dict(Match.objects.filter(pk__in=list(tables)).values_list("pk", "winner_seats"))
    flows: dict[tuple[int, int], int] = defaultdict(int)
    for match_id, table in tables.items():
        won = {table[s] for s in winners.get(match_id) or [] if s in table}
        for loser in set(table.values()) - won:
            for winner in won:
                flows[(loser, winner)] += 1
    return flows


def _one_way(frequent, flows, users, *, min_one_way: float, limit: int) -> list[PairFlow]:
    """The frequent pairs whose flow runs mostly one way, the receiving player second,
    the largest net first."""
    found = []
    for (a, b), n in frequent.items():
        flow = PairFlow(users[a], users[b], n, flows.get((a, b), 0), flows.get((b, a), 0))
        if flow.net < 0:  # name the receiving player second
            flow = PairFlow(users[b], users[a], n, flow.b_to_a, flow.a_to_b)
        if flow.a_to_b and flow.one_way >= min_one_way:
            found.append(flow)
    found.sort(key=lambda f: (-f.net, f.a.pk, f.b.pk))
    return found[:limit]


def _challenge_counts(tables):
    """Chances and challenges per ordered pair (challenger, bidder), and per player."""
    chances: dict[tuple[int, int], int] = defaultdict(int)
    challenges: dict[tuple[int, int], int] = defaultdict(int)
    player_chances: dict[int, int] = defaultdict(int)
    player_challenges: dict[int, int] = defaultdict(int)
    rounds = RoundRecord.objects.filter(match_id__in=list(tables)).values_list("match_id", "record")
    for match_id, record in rounds.iterator(chunk_size=500):
        table = tables[match_id]
        bidder = None
        for action in record.get("actions", []):
            seat, kind = action.get("seat"), action.get("type")
            previous, bidder = bidder, (seat if kind == "bid" else bidder)
            if previous is None or seat is None or seat == previous:
                continue
            if seat not in table or previous not in table:
                continue
            actor, target = table[seat], table[previous]
            chances[(actor, target)] += 1
            player_chances[actor] += 1
            if kind == "challenge":
                challenged = table.get(action.get("target_seat", previous), target)
                challenges[(actor, challenged)] += 1
                player_challenges[actor] += 1
    return chances, challenges, player_chances, player_challenges


def suspicion_report(
    *,
    days: int = 90,
    min_matches: int = 3,
    min_one_way: float = 0.8,
    min_chances: int = 10,
    limit: int = 50,
) -> SuspicionReport:
    since = timezone.now() - timedelta(days=days)
    tables = _matches_in_window(since)
    together: dict[tuple[int, int], int] = defaultdict(int)
    for table in tables.values():
        for a, b in combinations(sorted(set(table.values())), 2):
            together[(a, b)] += 1
    frequent = {pair: n for pair, n in together.items() if n >= min_matches}
    report = SuspicionReport(since=since, matches=len(tables))
    if not frequent:
        return report
    users = User.objects.in_bulk({p for pair in frequent for p in pair})

    chips = _flows(tables, _results(list(tables)))
    report.dumping = _one_way(frequent, chips, users, min_one_way=min_one_way, limit=limit)
    wins = _win_flows(tables)
    report.win_farming = _one_way(frequent, wins, users, min_one_way=min_one_way, limit=limit)

    chances, challenges, p_chances, p_challenges = _challenge_counts(tables)
    for (a, b), n in frequent.items():
        both = chances.get((a, b), 0) + chances.get((b, a), 0)
        made = challenges.get((a, b), 0) + challenges.get((b, a), 0)
        if both >= min_chances and made == 0:
            report.soft_play.append(
                PairChallenges(
                    users[a],
                    users[b],
                    n,
                    both,
                    made,
                    p_challenges[a] / p_chances[a] if p_chances[a] else 0.0,
                    p_challenges[b] / p_chances[b] if p_chances[b] else 0.0,
                )
            )
    report.soft_play.sort(key=lambda p: (-p.chances, p.a.pk, p.b.pk))
    del report.soft_play[limit:]
    return report
