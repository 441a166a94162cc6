"""Reads for moderators: the suspicion report and the audit trail.

The report looks at finished matches of human players (the server's bots sit with
everyone, so they are left out) and at the ledger over a recent window and lists, for
review:
* chip dumping, through every kind of ledger scope (a staked match, a tournament's
  prize pool: whatever moved chips from and back to wallets): pairs who often met in one
  and whose chips flow one way. A player's result in a scope is what came back to their
  wallet minus what left it (buy-in or entry versus cash-out, prizes and refunds); in
  each scope the losers' chips are shared out among the winners in proportion to what
  each won, which is exact for two players.
* win farming, at any stake (zero-stake matches too, where no chip moves but ratings
  and win counts do): pairs who often sit together where one nearly always loses to
  the other.
* new-account farming (issue 33): one winner over many new accounts (at most a few
  finished matches each, ever), each met once or twice, so no pair is frequent: the
  accounts beaten, the matches won over them and the chips that came from them.
* soft play: pairs who had many chances to challenge each other (one acted right after
  the other's bid) and never did.
Nothing here is proof; it is a list of things to look at.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import combinations

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from accounts.models import User
from games.models import Match, RoundRecord, Seat
from ledger.selectors import wallet_results_by_scope

# The longest window the report looks back over (ten years; far more would overflow the
# date arithmetic).
MAX_REPORT_DAYS = 3650


@dataclass
class PairFlow:
    """What flowed between two players who met: chips (dumping), or matches lost by one
    to the other (win farming)."""

    a: User
    b: User
    together: int  # matches (chips: ledger scopes, matches and tournaments) they shared
    a_to_b: int  # chips (or wins) that flowed from a to b
    b_to_a: int
    # Chips only: how many of the scopes shared were of each kind ("match": 1, ...).
    kinds: dict[str, int] = field(default_factory=dict)

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
class NewAccountFarm:
    """One winner over many new accounts: each met too rarely to make a frequent pair."""

    winner: User
    new_accounts: list[User]  # the new accounts that lost to the winner (matches or chips)
    matches: int  # matches the winner won over them
    chips: int  # chips that flowed from them to the winner


@dataclass
class SuspicionReport:
    since: object
    matches: int
    scopes: int = 0  # ledger scopes (matches and tournaments at a stake) looked at
    dumping: list[PairFlow] = field(default_factory=list)
    win_farming: list[PairFlow] = field(default_factory=list)
    new_account_farming: list[NewAccountFarm] = field(default_factory=list)
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


def _flows(results: dict[str, dict[int, int]]) -> dict[tuple[int, int], int]:
    """{(from, to): chips}: each scope's losses shared among its winners pro rata."""
    flows: dict[tuple[int, int], int] = defaultdict(int)
    for result in results.values():
        won = {p: amount for p, amount in result.items() if amount > 0}
        gains = sum(won.values())
        if not gains:
            continue
        for loser, amount in result.items():
            if amount >= 0:
                continue
            for winner, share in won.items():
                flows[(loser, winner)] += round(-amount * share / gains)
    return flows


def _pairs(groups) -> dict[tuple[int, int], int]:
    """{(a, b): how many of `groups` (sets of player ids) held both}, a < b."""
    together: dict[tuple[int, int], int] = defaultdict(int)
    for group in groups:
        for pair in combinations(sorted(group), 2):
            together[pair] += 1
    return together


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


def _scope_kinds(results: dict[str, dict[int, int]], pair: tuple[int, int]) -> dict[str, int]:
    """How many scopes of each kind (the scope's prefix: "match", ...) held both."""
    kinds: dict[str, int] = defaultdict(int)
    for scope, result in results.items():
        if pair[0] in result and pair[1] in result:
            kinds[scope.split(":", 1)[0]] += 1
    return dict(sorted(kinds.items()))


def _new_account_farms(
    wins, chips, *, max_matches: int, min_accounts: int, limit: int
) -> list[NewAccountFarm]:
    """Winners over `min_accounts` or more new accounts (at most `max_matches` finished
    matches each, ever, bots' tables included) that lost matches or chips to them."""
    beaten: dict[int, set[int]] = defaultdict(set)
    for (loser, winner), n in [*wins.items(), *chips.items()]:
        if n > 0:
            beaten[winner].add(loser)
    candidates = [w for w, losers in beaten.items() if len(losers) >= min_accounts]
    if not candidates:
        return []
    losers = {p for w in candidates for p in beaten[w]}
    played = dict(
        Seat.objects.filter(match__status=Match.Status.FINISHED, player_id__in=losers)
        .values("player_id")
        .annotate(n=Count("match_id", distinct=True))
        .values_list("player_id", "n")
    )
    users = User.objects.in_bulk({*candidates, *losers})
    found = []
    for winner in candidates:
        new = sorted(p for p in beaten[winner] if played.get(p, 0) <= max_matches)
        if len(new) < min_accounts:
            continue
        found.append(
            NewAccountFarm(
                winner=users[winner],
                new_accounts=[users[p] for p in new],
                matches=sum(wins.get((p, winner), 0) for p in new),
                chips=sum(chips.get((p, winner), 0) for p in new),
            )
        )
    found.sort(key=lambda f: (-len(f.new_accounts), -f.matches, f.winner.pk))
    return found[:limit]


def suspicion_report(
    *,
    days: int = 90,
    min_matches: int = 3,
    min_one_way: float = 0.8,
    min_chances: int = 10,
    new_account_matches: int | None = None,
    min_new_accounts: int = 5,
    limit: int = 50,
) -> SuspicionReport:
    since = timezone.now() - timedelta(days=days)
    tables = _matches_in_window(since)
    results = wallet_results_by_scope(since=since)
    report = SuspicionReport(since=since, matches=len(tables), scopes=len(results))

    chips = _flows(results)
    wins = _win_flows(tables)
    # Just past establishment by default: alts that played each other up to it count.
    if new_account_matches is None:
        new_account_matches = settings.RATING_ESTABLISHED_GAMES + 2
    report.new_account_farming = _new_account_farms(
        wins,
        chips,
        max_matches=new_account_matches,
        min_accounts=min_new_accounts,
        limit=limit,
    )

    sat = _pairs(set(table.values()) for table in tables.values())
    met = _pairs(set(result) for result in results.values())
    frequent = {pair: n for pair, n in sat.items() if n >= min_matches}
    frequent_chips = {pair: n for pair, n in met.items() if n >= min_matches}
    users = User.objects.in_bulk({p for pair in [*frequent, *frequent_chips] for p in pair})

    report.dumping = _one_way(frequent_chips, chips, users, min_one_way=min_one_way, limit=limit)
    for flow in report.dumping:
        flow.kinds = _scope_kinds(results, (flow.a.pk, flow.b.pk))
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
