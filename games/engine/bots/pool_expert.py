"""The common-pool `expert`: mixed bids, a bluff-aware posterior, moves valued in dice.

Every move is valued as the dice it is expected to win or cost under the match's own loss
rules (`loss`, `exact_outcome`, calza), against a posterior over each opponent's hidden
dice built from their bids this round. Bids are drawn from a softmax over their values, so
a hand does not fix the bid: weak hands sometimes open or jump on faces they barely hold,
strong ones sometimes raise by the minimum, at frequencies set per preset by the
parameter search in bench/bots.py. An opponent who reads its bids as the truth gets
caught, and one who reads them as bluffs gets caught the other way.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..presets import PRESETS
from .common_pool_strategies import (
    Table,
    base_match,
    best_show_reroll,
    bid_action,
    binomial_pmf,
    challenge_action,
    chance_of_pair,
    convolve,
    has_pair,
    p_with_show,
    raise_options,
    show_plan,
)
from .view_play import entry


@dataclass(frozen=True)
class PoolParams:
    """One preset's tuning (`PARAMS_BY_PRESET`, from bench/tune_expert.py)."""

    open_weight: float = 1.0  # how much an opening bid says about the bidder's dice (likelihood)
    raise_weight: float = 0.8  # ... a raise that changes face
    follow_weight: float = 0.3  # ... a raise on the standing bid's face
    jump_weight: float = 0.5  # ... added for a raise above the minimum
    bluff: float = 0.3  # how often opponents are taken to bid a face they lack
    challenge_slope: float = 10.0  # how sharply the next player's challenges follow the odds
    challenge_point: float = 0.45  # public odds at which the next player challenges half the time
    pressure: float = 0.3  # dice value of leaving the next player an unlikely minimum raise
    others_weight: float = 0.5  # value of another player's lost die beyond heads-up
    temperature: float = 0.12  # softmax temperature over raises, in dice
    max_jump: int = 3  # raises considered above each face's minimum
    regain_value: float = 0.6  # value of a die won back by a right exact call
    show_gain: float = 0.08  # show dice only when that makes the raise this much likelier
    pass_value: float = 0.9
    passer_honesty: float = 0.6


# Per preset, from bench/tune_expert.py's search against the exploiters of bench/bots.py
# and the previous expert.
PARAMS_BY_PRESET: dict[str, PoolParams] = {
    "milton_bradley": PoolParams(
        bluff=0.242,
        challenge_point=0.201,
        challenge_slope=2.0,
        follow_weight=0.545,
        jump_weight=0.61,
        open_weight=1.142,
        pressure=1.2,
        raise_weight=1.822,
        regain_value=1.024,
        temperature=0.02,
    ),
    "wild_ones": PoolParams(
        bluff=0.03,
        challenge_point=0.564,
        challenge_slope=16.409,
        follow_weight=0.471,
        jump_weight=-0.204,
        open_weight=1.367,
        pressure=0.977,
        raise_weight=0.469,
        regain_value=0.319,
        temperature=0.164,
    ),
    "roll_off": PoolParams(
        bluff=0.03,
        challenge_point=0.564,
        challenge_slope=16.409,
        follow_weight=0.471,
        jump_weight=-0.204,
        open_weight=1.367,
        pressure=0.977,
        raise_weight=0.469,
        regain_value=0.319,
        temperature=0.164,
    ),
    "classic": PoolParams(
        bluff=0.03,
        challenge_point=0.367,
        challenge_slope=11.34,
        follow_weight=0.694,
        jump_weight=1.746,
        open_weight=2.449,
        pressure=1.2,
        raise_weight=0.869,
        regain_value=0.767,
        temperature=0.097,
    ),
    "perudo": PoolParams(
        bluff=0.137,
        challenge_point=0.344,
        challenge_slope=12.411,
        follow_weight=0.728,
        jump_weight=0.523,
        open_weight=1.282,
        pressure=1.2,
        raise_weight=-0.474,
        regain_value=1.024,
        temperature=0.037,
    ),
}
# Each preset's options, to find the closest preset to a match with options of its own.
_PRESET_OPTIONS = {name: PRESETS[name].options() for name in PARAMS_BY_PRESET}


def params_for(view: dict) -> PoolParams:
    """The tuned parameters of the preset whose options are closest to this match's."""
    rules = view["rules"]

    def agreement(name: str) -> int:
        return sum(_PRESET_OPTIONS[name].get(k) == v for k, v in rules.items())

    return PARAMS_BY_PRESET[max(PARAMS_BY_PRESET, key=agreement)]


# --- the posterior ------------------------------------------------------------------------

# Opponent seat -> (face, weight) of each of its bids this round.
Evidence = dict[int, list[tuple[int, float]]]


def bid_evidence(
    view: dict, table: Table, params: PoolParams
) -> dict[int, list[tuple[int, float]]]:
    """(face, weight) of each opponent's bids this round, since their last reroll.

    The weight says how much a bid of that kind tells about the bidder's dice: an opening
    more than a forced raise on the standing face, a jump more than the lowest raise. A
    negative weight reads the bid as a sign that the bidder lacks the face.
    """
    evidence: Evidence = {}
    standing: tuple[int, int] | None = None  # (quantity, face) of the bid standing
    for action in view["round"]["actions"]:
        seat = action["seat"]
        if action["type"] == "show_reroll" or (action["type"] == "bid" and "shown" in action):
            evidence.pop(seat, None)  # the bid came from dice now rerolled
        if action["type"] != "bid":
            continue
        face, quantity = action["face"], action["quantity"]
        previous, standing = standing, (quantity, face)
        if seat == table.me or "shown" in action:
            continue
        if previous is None:
            weight = params.open_weight
        else:
            weight = params.follow_weight if face == previous[1] else params.raise_weight
            if quantity > _lowest_raise(table, previous, face):
                weight += params.jump_weight
        evidence.setdefault(seat, []).append((face, weight))
    return evidence


def likelihood(weight: float, bluff: float, count: int) -> float:
    """P(a bid of this kind on a face | the bidder holds `count` dice counting toward it).

    A bidder bids a face it holds, or bluffs whatever it holds, at the rate `bluff`; so
    the evidence of one bid is never worth more than 1 / bluff, however sure it sounds.
    """
    if weight >= 0:
        return bluff + (1 - bluff) * (1 - math.exp(-weight * count))
    return bluff + (1 - bluff) * math.exp(weight * count)


class PosteriorTable(Table):
    """The table with each opponent's hidden count of a face weighed by their bids on it."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.evidence: Evidence = {}
        self.bluff = 1.0

    def observe(self, evidence: Evidence, bluff: float) -> None:
        self.evidence = evidence
        self.bluff = bluff
        self._dist.clear()

    def hidden_dist(self, face: int) -> list[float]:
        dist = self._dist.get(face)
        if dist is None:
            dist = [1.0]
            for seat, n in self.hidden.items():
                if n > 0:
                    dist = convolve(dist, self._seat_pmf(seat, n, face))
            self._dist[face] = dist
        return dist

    def _seat_pmf(self, seat: int, n: int, face: int) -> list[float]:
        pmf = list(binomial_pmf(n, base_match(face, self.ones_wild)))
        weights = [w for f, w in self.evidence.get(seat, ()) if f == face]
        if not weights:
            return pmf
        for k in range(n + 1):
            for w in weights:
                pmf[k] *= likelihood(w, self.bluff, k)
        total = sum(pmf)
        return [x / total for x in pmf]


def _lowest_raise(table: Table, previous: tuple[int, int], face: int) -> int:
    """The lowest quantity on `face` that tops `previous`."""
    key = table.key(*previous)
    quantity = 1
    while table.key(quantity, face) <= key:
        quantity += 1
    return quantity


# --- values in dice -----------------------------------------------------------------------


@dataclass
class Stakes:
    """Who stands to lose what at a reveal, from the rules and the dice each seat holds."""

    difference: bool
    exact_all: bool  # others_lose_one: every live seat but the bidder loses one
    spares_last: bool
    dice: dict[int, int]  # live seat -> dice it holds
    others_weight: float

    @classmethod
    def from_view(cls, view: dict, params: PoolParams) -> Stakes:
        rules = view["rules"]
        dice = {int(s): n for s, n in view["round"]["dice_counts"].items() if n > 0}
        return cls(
            difference=rules["loss"] == "difference",
            exact_all=rules["exact_outcome"] == "others_lose_one",
            spares_last=rules["exact_spares_last_die"],
            dice=dice,
            others_weight=1.0 if len(dice) == 2 else params.others_weight,
        )

    def lose(self, seat: int, dice: int) -> int:
        return min(self.dice.get(seat, 0), dice if self.difference else 1)

    def reveal_value(self, me: int, bidder: int, challenger: int, bid: int, actual: int) -> float:
        """My gain in dice (others' losses weighted) when `challenger` challenges `bidder`."""
        if actual < bid:
            losses = {bidder: self.lose(bidder, bid - actual)}
        elif actual > bid:
            losses = {challenger: self.lose(challenger, actual - bid)}
        elif self.exact_all:
            losses = {
                s: 1
                for s, n in self.dice.items()
                if s != bidder and not (self.spares_last and n == 1 and s != challenger)
            }
        else:
            losses = {challenger: 1}
        return sum(-n if s == me else self.others_weight * n for s, n in losses.items())


def count_dist(table: PosteriorTable, face: int) -> list[float]:
    """Distribution of the count toward `face` at the reveal, from this seat's posterior."""
    known = table.known(face)
    return [0.0] * known + table.hidden_dist(face)


def public_tail(table: Table, face: int) -> list[float]:
    """P(count >= q) for every q, as a seat that sees only the shown dice would reckon."""
    hidden = sum(table.hidden.values()) + len(table.cup)
    shown = table.known(face, cup=[])
    pmf = binomial_pmf(hidden, base_match(face, table.ones_wild))
    tail = [0.0] * (shown + hidden + 2)
    acc = 0.0
    for k in range(hidden, -1, -1):
        acc += pmf[k]
        tail[shown + k] = acc
    for q in range(shown):
        tail[q] = 1.0
    return tail


def expected_reveal(
    stakes: Stakes, dist: list[float], me: int, bidder: int, challenger: int, bid: int
) -> float:
    return sum(
        p * stakes.reveal_value(me, bidder, challenger, bid, actual)
        for actual, p in enumerate(dist)
        if p > 1e-9
    )


# --- the strategy -------------------------------------------------------------------------


def expert_pool(
    view: dict, legal: list[dict], rng: random.Random, params: PoolParams | None = None
) -> dict:
    """Challenge, call exact, pass or raise, whichever is worth the most dice; bids mixed."""
    params = params or params_for(view)
    table = PosteriorTable.from_view(view)
    table.observe(bid_evidence(view, table, params), params.bluff)
    stakes = Stakes.from_view(view, params)
    mins = raise_options(legal)
    live = sorted(stakes.dice)
    after_me = live[(live.index(table.me) + 1) % len(live)]

    bids, values = _raise_candidates(table, stakes, mins, after_me, params)
    options: list[tuple[float, dict]] = []
    if table.bid is not None:
        challenge = entry(legal, "challenge")
        if challenge and table.bidder in challenge["target_seats"]:
            dist = count_dist(table, table.bid[1])
            value = expected_reveal(stakes, dist, table.me, table.bidder, table.me, table.bid[0])
            options.append((value, challenge_action(table.bidder)))
        if challenge:
            options += _passer_challenges(table, challenge["target_seats"], params)
        if entry(legal, "exact"):
            options.append((_exact_value(table, stakes, params), {"type": "exact"}))
        if entry(legal, "pass") and not has_pair(table.cup + table.shown.get(table.me, [])):
            options.append((params.pass_value, {"type": "pass"}))
    if bids:
        weights = _softmax(values, params.temperature)
        mixed = sum(w * v for w, v in zip(weights, values, strict=True))
        pick = rng.choices(range(len(bids)), weights)[0]
        options.append((mixed, _with_show(view, legal, table, bids[pick], params)))
    best = max(options, key=lambda o: o[0])
    return best[1]


def _softmax(values: list[float], temperature: float) -> list[float]:
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


def _raise_candidates(
    table: Table, stakes: Stakes, mins: dict[int, int], responder: int, params: PoolParams
) -> tuple[list[tuple[int, int]], list[float]]:
    """Every raise up to `max_jump` above each face's minimum, with its value in dice.

    A raise is challenged by the next player with a chance that follows how unlikely it
    looks to someone who cannot see this seat's dice; if it is not challenged, the next
    player has to raise past it, which is worth `pressure` times how unlikely their own
    lowest raise would look.
    """
    bids: list[tuple[int, int]] = []
    values: list[float] = []
    for face, low in mins.items():
        dist = count_dist(table, face)
        public = public_tail(table, face)
        # As high as the count this seat expects, so that an opening can be a real bid.
        expected = sum(q * p for q, p in enumerate(dist))
        top = min(table.total, max(low + params.max_jump, round(expected) + 1))
        for quantity in range(low, top + 1):
            seen = public[quantity] if quantity < len(public) else 0.0
            after = public[quantity + 1] if quantity + 1 < len(public) else 0.0
            called = 1 / (1 + math.exp(params.challenge_slope * (seen - params.challenge_point)))
            if_called = expected_reveal(stakes, dist, table.me, table.me, responder, quantity)
            if_raised = params.pressure * (1 - after)
            bids.append((quantity, face))
            values.append(called * if_called + (1 - called) * if_raised)
    return bids, values


def _exact_value(table: Table, stakes: Stakes, params: PoolParams) -> float:
    p_exact = table.p_exactly(*table.bid)
    mine = len(table.cup) + len(table.shown.get(table.me, []))
    regain = params.regain_value if mine < table.dice_per_player else 0.0
    return p_exact * regain - (1 - p_exact) * stakes.lose(table.me, 1)


def _passer_challenges(
    table: Table, targets: list[int], params: PoolParams
) -> list[tuple[float, dict]]:
    options = []
    for seat in targets:
        if seat == table.bidder:
            continue
        p_pair = chance_of_pair(table.shown.get(seat, []), table.hidden.get(seat, 0))
        p_caught = p_pair * (1 - params.passer_honesty)
        options.append((2 * p_caught - 1, challenge_action(seat)))
    return options


def _with_show(
    view: dict, legal: list[dict], table: Table, bid: tuple[int, int], params: PoolParams
) -> dict:
    """The raise, with dice shown or after a show-and-reroll when that makes it likelier."""
    quantity, face = bid
    p = table.p_at_least(quantity, face)
    bid_entry = entry(legal, "bid")
    if bid_entry.get("can_show"):
        plan = show_plan(table, face)
        if (
            plan is not None
            and len(plan[0]) <= bid_entry["max_show"]
            and p_with_show(table, quantity, face, plan) >= p + params.show_gain
        ):
            return bid_action(quantity, face, plan[0])
    if entry(legal, "show_reroll") and not view["round"]["must_raise"]:
        best = best_show_reroll(table, raise_options(legal), legal)
        if best is not None and best[0] >= p + params.show_gain:
            return {"type": "show_reroll", "show": best[1]}
    return bid_action(quantity, face)
