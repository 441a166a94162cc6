"""Common-pool strategies: `cautious` (binomial odds) and the odds-reading strategy that is
`hard` with its defaults and `expert` with its tuning (pool_expert.py), the probability
helpers and the table every strategy reckons with.

Both read only the seat's view. The count of dice showing a face is split into what the
seat knows (its own cup and every shown die) and the hidden cups of the other seats; the
hidden part is a sum of binomials, one per opponent, with a per-die match probability
that is uniform for `cautious` and shaded by each opponent's bids for `hard` and `expert`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from ..common_pool.bids import bid_key, min_quantity
from .view_play import entry, total_dice

# --- probability helpers ---------------------------------------------------------------


@lru_cache(maxsize=4096)
def binomial_pmf(n: int, p: float) -> tuple[float, ...]:
    """P(X = k) for k = 0..n, X ~ Binomial(n, p)."""
    q = 1.0 - p
    return tuple(math.comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


def convolve(a: tuple[float, ...] | list[float], b: tuple[float, ...]) -> list[float]:
    """Distribution of the sum of two independent counts."""
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x < 1e-12:
            continue  # negligible mass; skipping it keeps 8x5 tables fast
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def base_match(face: int, ones_wild: bool) -> float:
    """Chance that one unseen die counts toward a bid on `face`."""
    return 1 / 3 if ones_wild and face != 1 else 1 / 6


def counts_toward(die: int, face: int, ones_wild: bool) -> bool:
    return die == face or (ones_wild and face != 1 and die == 1)


def has_pair(dice: list[int]) -> bool:
    return len(set(dice)) < len(dice)


def chance_of_pair(known: list[int], hidden: int) -> float:
    """Chance that `known` dice plus `hidden` fair dice include two equal values."""
    if has_pair(known):
        return 1.0
    free = 6 - len(known)
    if hidden > free:
        return 1.0
    p_distinct = 1.0
    for i in range(hidden):
        p_distinct *= (free - i) / 6
    return 1.0 - p_distinct


# --- the table as one seat sees it ----------------------------------------------------


@dataclass
class Table:
    """What a seat knows in a common-pool round, and the odds of any count."""

    me: int
    ones_wild: bool
    ones_bids: str
    dice_per_player: int
    cup: list[int]
    shown: dict[int, list[int]]
    hidden: dict[int, int]  # opponent seat -> dice still hidden in their cup
    total: int
    bid: tuple[int, int] | None
    bidder: int
    weights: dict[int, list[float]] | None = None  # opponent -> face weights (index 1..6)

    def __post_init__(self) -> None:
        self._dist: dict[int, list[float]] = {}

    @classmethod
    def from_view(cls, view: dict) -> Table:
        rules = view["rules"]
        rnd = view["round"]
        me = view["your_seat"]
        shown = {int(s): list(d) for s, d in rnd["shown_dice"].items()}
        hidden = {
            int(s): c - len(shown.get(int(s), ()))
            for s, c in rnd["dice_counts"].items()
            if int(s) != me
        }
        bid = rnd["current_bid"]
        return cls(
            me=me,
            ones_wild=rules["ones_wild"] and not rnd.get("palifico", False),
            ones_bids=rules["ones_bids"],
            dice_per_player=rules["dice_per_player"],
            cup=list(rnd.get("your_dice") or []),
            shown=shown,
            hidden=hidden,
            total=total_dice(view),
            bid=None if bid is None else (bid["quantity"], bid["face"]),
            bidder=-1 if bid is None else bid["seat"],
        )

    def set_weights(self, weights: dict[int, list[float]] | None) -> None:
        """Shade the opponents' dice (inference from bids); drops the cached distributions."""
        self.weights = weights
        self._dist.clear()

    def known(self, face: int, cup: list[int] | None = None) -> int:
        """Dice this seat can see that count toward `face` (own cup and all shown dice)."""
        wild = self.ones_wild
        n = sum(counts_toward(d, face, wild) for d in (self.cup if cup is None else cup))
        for dice in self.shown.values():
            n += sum(counts_toward(d, face, wild) for d in dice)
        return n

    def match_prob(self, seat: int, face: int) -> float:
        """Chance that one hidden die of `seat` counts toward `face`."""
        w = None if self.weights is None else self.weights.get(seat)
        if w is None:
            return base_match(face, self.ones_wild)
        hit = w[face] + (w[1] if self.ones_wild and face != 1 else 0.0)
        return hit / sum(w[1:])

    def hidden_dist(self, face: int) -> list[float]:
        """Distribution of the hidden dice that count toward `face`."""
        dist = self._dist.get(face)
        if dist is None:
            dist = [1.0]
            for seat, n in self.hidden.items():
                if n > 0:
                    dist = convolve(dist, binomial_pmf(n, self.match_prob(seat, face)))
            self._dist[face] = dist
        return dist

    def p_at_least(
        self, quantity: int, face: int, fresh: int = 0, known: int | None = None
    ) -> float:
        """P(at least `quantity` dice count toward `face` at the reveal).

        `fresh` dice of this seat will be rerolled (show and reroll) and `known` overrides
        the seat's visible count (for the dice it would keep in view).
        """
        need = quantity - (self.known(face) if known is None else known)
        if need <= 0:
            return 1.0
        dist = self.hidden_dist(face)
        if fresh:
            dist = convolve(dist, binomial_pmf(fresh, base_match(face, self.ones_wild)))
        if need >= len(dist):
            return 0.0
        return min(1.0, sum(dist[need:]))

    def p_exactly(self, quantity: int, face: int) -> float:
        need = quantity - self.known(face)
        dist = self.hidden_dist(face)
        return dist[need] if 0 <= need < len(dist) else 0.0

    def key(self, quantity: int, face: int) -> int:
        return bid_key(self.ones_bids, quantity, face)


def raise_options(legal: list[dict]) -> dict[int, int]:
    """{face: lowest legal quantity} from the bid entry (empty when no raise is legal)."""
    item = entry(legal, "bid")
    if item is None:
        return {}
    return {int(f): q for f, q in item["min_quantity_by_face"].items()}


def bid_action(quantity: int, face: int, show: list[int] | None = None) -> dict:
    action: dict = {"type": "bid", "quantity": quantity, "face": face}
    if show:
        action["show"] = show
    return action


def challenge_action(target: int) -> dict:
    return {"type": "challenge", "target_seat": target}


# --- cautious --------------------------------------------------------------------------

OPEN_CONFIDENCE = 0.6  # an opening bid should be at least this likely


def opening_bid(table: Table, mins: dict[int, int], confidence: float) -> tuple[int, int]:
    """The highest bid at least `confidence` likely; ties go to the likelier face."""
    best: tuple[int, float, int] | None = None
    for face, low in mins.items():
        q = low
        while q < table.total and table.p_at_least(q + 1, face) >= confidence:
            q += 1
        p = table.p_at_least(q, face)
        cand = (q if p >= confidence else 0, p, face)
        if best is None or cand[:2] > best[:2]:
            best = cand
    quantity = max(best[0], mins[best[2]])
    return quantity, best[2]


def likeliest_raise(table: Table, mins: dict[int, int]) -> tuple[float, int, int]:
    """(probability, quantity, face) of the lowest raise most likely to be true."""
    best: tuple[float, int, int] | None = None
    for face, q in mins.items():
        p = table.p_at_least(q, face)
        if (
            best is None
            or p > best[0] + 1e-9
            or (abs(p - best[0]) <= 1e-9 and table.key(q, face) < table.key(best[1], best[2]))
        ):
            best = (p, q, face)
    return best


def cautious_pool(
    view: dict, legal: list[dict], rng: random.Random, doubt_margin: float = 0.0
) -> dict:
    """Challenge when the standing bid is less likely than the best raise (by more than
    `doubt_margin`); else raise."""
    table = Table.from_view(view)
    mins = raise_options(legal)
    challenge = entry(legal, "challenge")
    if table.bid is None:
        return bid_action(*opening_bid(table, mins, OPEN_CONFIDENCE))
    target = table.bidder if challenge and table.bidder in challenge["target_seats"] else None
    if not mins:
        return challenge_action(target if target is not None else _first(challenge))
    p_raise, q, face = likeliest_raise(table, mins)
    if target is not None and 1 - table.p_at_least(*table.bid) > p_raise + doubt_margin:
        return challenge_action(target)
    return bid_action(q, face)


def _first(challenge: dict | None) -> int:
    return challenge["target_seats"][0]


# --- hard and expert: one algorithm, two tunings --------------------------------------


@dataclass(frozen=True)
class PoolParams:
    """The weights of the odds-reading strategy. The defaults are `hard` (set by hand; it
    was the expert until issue 27); the expert (pool_expert.py) turns on the mixing and
    the capped reading of bids, with values searched per preset by bench/tune_expert.py."""

    first_bid_weight: float = 1.0  # log-odds per die for the face of a seat's first bid
    same_face_weight: float = 0.5  # ... for a later bid on the face the standing bid names
    new_face_weight: float = 0.5  # ... for a later bid that changes face
    jump_weight: float = 0.0  # ... added for a bid above the lowest legal quantity
    wild_share: float = 0.5  # ones (wild) are hinted by any number bid, at this share
    belief_cap: float = math.inf  # no face's odds grow past this multiple: bluffs happen
    open_confidence: float = 0.6
    jump_confidence: float = 0.72  # raise above the minimum only if this likely
    max_jump: int = 3
    bluff_rate: float = 0.05
    bluff_floor: float = 0.45  # a bluff must still be this likely
    bluff_jump: float = 0.0  # share of bluffs that jump as far as the truthful raise would
    open_bluff: float = 0.0  # share of openings on another face, as high as it stays likely
    sandbag: float = 0.0  # share of sure jumps made as the lowest raise instead
    call_margin: float = 0.0  # added to the odds that the standing bid is false
    exact_bonus: float = 0.1  # added to an exact call's odds when it could win a die back
    show_gain: float = 0.08  # show and reroll only when it makes the raise this much likelier
    pass_value: float = 0.9
    passer_honesty: float = 0.6  # share of passers that pass because they have no pair

    def __post_init__(self) -> None:
        if self.belief_cap < 1 or self.max_jump < 0:
            raise ValueError("belief_cap must be at least 1 and max_jump at least 0")


HARD = PoolParams()


def infer_weights(view: dict, table: Table, params: PoolParams) -> dict[int, list[float]]:
    """Per-opponent face weights from their bids this round (Bayesian-ish, dice independent).

    A bid on face g multiplies the odds of every hidden die of the bidder showing g by
    exp(weight), the weight by the kind of bid; the likelihood exp(weight * count_g)
    factorises over dice, so the dice stay independent and the counts stay a sum of
    binomials. A reroll (show) resets them; `belief_cap` bounds what bids can prove.
    """
    weights: dict[int, list[float]] = {}
    seen: set[int] = set()
    standing: tuple[int, int] | None = None
    for action in view["round"]["actions"]:
        seat = action["seat"]
        if action["type"] == "show_reroll" or (action["type"] == "bid" and "shown" in action):
            # The bid came from dice now rerolled (before_raise shows with the bid).
            weights.pop(seat, None)
            seen.discard(seat)
        if action["type"] != "bid":
            continue
        face, quantity = action["face"], action["quantity"]
        previous, standing = standing, (quantity, face)
        if seat == table.me or "shown" in action:
            continue
        if seat not in seen:
            boost = params.first_bid_weight
        elif previous is not None and face == previous[1]:
            boost = params.same_face_weight
        else:
            boost = params.new_face_weight
        if previous is not None and quantity > lowest_raise(table, previous, face):
            boost += params.jump_weight
        seen.add(seat)
        w = weights.setdefault(seat, [0.0] + [1.0] * 6)
        w[face] *= math.exp(boost)
        if table.ones_wild and face != 1:
            w[1] *= math.exp(boost * params.wild_share)
        if params.belief_cap < math.inf:
            cap = params.belief_cap
            w[1:] = [min(cap, max(1 / cap, x)) for x in w[1:]]
    return weights


def lowest_raise(table: Table, previous: tuple[int, int], face: int) -> int:
    """The lowest quantity on `face` that tops `previous`."""
    return min_quantity(table.ones_bids, face, table.key(*previous))


def show_plan(table: Table, face: int) -> tuple[list[int], int] | None:
    """Dice to show for a raise on `face` (those counting toward it) and how many reroll."""
    show = [i for i, d in enumerate(table.cup) if counts_toward(d, face, table.ones_wild)]
    rest = len(table.cup) - len(show)
    if not show or rest == 0:
        return None
    return show, rest


def odds_raise(
    table: Table, mins: dict[int, int], params: PoolParams, rng: random.Random
) -> tuple[float, int, int]:
    """(probability, quantity, face) of the raise.

    It jumps to the highest bid it still believes at `jump_confidence` (a bid backed by
    its own dice looks unlikely to a player who cannot see them), else takes the likeliest
    lowest raise. Now and then it bluffs on a face it barely holds (jumping as far as the
    truthful raise would, `bluff_jump` of the time), and now and then it makes a sure jump
    as the lowest raise (`sandbag`), so that neither a jump nor a minimum raise is proof.
    """
    p, q, face = likeliest_raise(table, mins)
    best = (p, q, face)
    best_key = table.key(q, face)
    for f, low in mins.items():
        top = min(table.total, low + params.max_jump)
        for qq in range(low, top + 1):
            pp = table.p_at_least(qq, f)
            if pp < params.jump_confidence:
                break
            k = table.key(qq, f)
            if k > best_key:
                best, best_key = (pp, qq, f), k
    if rng.random() < params.bluff_rate:
        others = [
            f for f in mins if f != best[2] and table.p_at_least(mins[f], f) >= params.bluff_floor
        ]
        if others:
            f = rng.choice(others)
            jump = (
                best[1] - mins[best[2]]
                if params.bluff_jump and rng.random() < params.bluff_jump
                else 0
            )
            quantity = min(table.total, mins[f] + jump)
            return table.p_at_least(quantity, f), quantity, f
    if params.sandbag and best[1] > mins[best[2]] and rng.random() < params.sandbag:
        low = mins[best[2]]
        return table.p_at_least(low, best[2]), low, best[2]
    return best


def odds_opening(
    table: Table, mins: dict[int, int], params: PoolParams, rng: random.Random
) -> tuple[int, int]:
    """The highest bid at `open_confidence`; `open_bluff` of the time on another face, as
    high as it still looks `bluff_floor` likely (at least that face's lowest bid)."""
    quantity, face = opening_bid(table, mins, params.open_confidence)
    others = [f for f in mins if f != face]
    if params.open_bluff and others and rng.random() < params.open_bluff:
        f = rng.choice(others)
        q = mins[f]
        while q < table.total and table.p_at_least(q + 1, f) >= params.bluff_floor:
            q += 1
        return q, f
    return quantity, face


def odds_pool(view: dict, legal: list[dict], rng: random.Random, params: PoolParams = HARD) -> dict:
    """Compare challenge, exact, pass, show-and-reroll and raises by their odds (`hard`
    with its defaults; the expert with its tuning)."""
    table = Table.from_view(view)
    table.set_weights(infer_weights(view, table, params))
    mins = raise_options(legal)
    if table.bid is None:
        return bid_action(*odds_opening(table, mins, params, rng))

    # (value, tie-break order, action): value ~ the chance the action does not cost a die.
    options: list[tuple[float, int, dict]] = []
    if mins:
        options += _raise_options(view, legal, table, mins, params, rng)
    challenge = entry(legal, "challenge")
    if challenge:
        options += _challenge_options(table, challenge["target_seats"], params)
    if entry(legal, "exact"):
        p_eq = table.p_exactly(*table.bid)
        mine = len(table.cup) + len(table.shown.get(table.me, []))
        bonus = params.exact_bonus if mine < table.dice_per_player else 0.0
        options.append((p_eq + bonus, 4, {"type": "exact"}))
    if entry(legal, "pass"):
        mine = table.cup + table.shown.get(table.me, [])
        if not has_pair(mine):
            options.append((params.pass_value, 5, {"type": "pass"}))
    options.sort(key=lambda o: (-o[0], o[1]))
    return options[0][2]


def _raise_options(
    view: dict,
    legal: list[dict],
    table: Table,
    mins: dict[int, int],
    params: PoolParams,
    rng: random.Random,
) -> list[tuple[float, int, dict]]:
    """The raise (with dice shown when that pays) and a show-and-reroll."""
    p, q, face = odds_raise(table, mins, params, rng)
    action = bid_action(q, face)
    bid_entry = entry(legal, "bid")
    if bid_entry.get("can_show"):
        plan = show_plan(table, face)
        if plan is not None and plan[0] and len(plan[0]) <= bid_entry["max_show"]:
            p_show = p_with_show(table, q, face, plan)
            if p_show >= p + params.show_gain:
                action, p = bid_action(q, face, plan[0]), p_show
    options = [(p, 2, action)]
    if entry(legal, "show_reroll") and not view["round"]["must_raise"]:
        best_show = best_show_reroll(table, mins, legal)
        if best_show is not None and best_show[0] >= p + params.show_gain:
            options.append((best_show[0], 3, {"type": "show_reroll", "show": best_show[1]}))
    return options


def _challenge_options(
    table: Table, targets: list[int], params: PoolParams
) -> list[tuple[float, int, dict]]:
    """Challenging the bidder (the bid is false) or a passer (a pair among their dice)."""
    options = []
    if table.bidder in targets:
        p_false = 1 - table.p_at_least(*table.bid) + params.call_margin
        options.append((p_false, 0, challenge_action(table.bidder)))
    for seat in targets:
        if seat == table.bidder:
            continue
        known = table.shown.get(seat, [])
        p_pair = chance_of_pair(known, table.hidden.get(seat, 0))
        value = p_pair * (1 - params.passer_honesty)
        options.append((value, 1, challenge_action(seat)))
    return options


def p_with_show(table: Table, q: int, face: int, plan: tuple[list[int], int]) -> float:
    """P(raise true) if the seat shows `plan` dice and rerolls the rest of its cup."""
    kept = [table.cup[i] for i in plan[0]]
    known = table.known(face, cup=kept)
    return table.p_at_least(q, face, fresh=plan[1], known=known)


def best_show_reroll(
    table: Table, mins: dict[int, int], legal: list[dict]
) -> tuple[float, list[int]] | None:
    """The show-and-reroll (after_reroll) that most improves the lowest raise on a face."""
    most = entry(legal, "show_reroll")["max_show"]
    best: tuple[float, list[int]] | None = None
    for face, q in mins.items():
        plan = show_plan(table, face)
        if plan is None or len(plan[0]) > most:
            continue
        p = p_with_show(table, q, face, plan)
        if best is None or p > best[0]:
            best = (p, plan[0])
    return best
