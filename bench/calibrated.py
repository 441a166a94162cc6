"""The calibrated reader (issue 27): learn how often a target's bids are true, then use it.

While it plays, a recorder reads each finished round from the views it is shown
(`last_round`: every action and every die), and for each opponent bid stores its features
(the kind of bid and the odds a responder's model gave it, in buckets) and whether the bid
was true at the reveal. The reader then plays like the parametric exploiter, except that
its belief in the standing bid is that empirical truth rate, shrunk toward the model's
odds while the bucket has few bids; being calibrated, it compares probabilities without
the tuned margins (call_margin, exact_edge, accept_margin are zero). Only the view is
read, never the target's code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from bench.exploiters import (
    PokerExploitParams,
    PoolExploitParams,
    claim_kind,
    poker_exploiter,
    pool_bid_kind,
    pool_exploiter,
)
from games.engine.bots.common_pool_strategies import Table, counts_toward
from games.engine.bots.poker_dice_strategies import bidder_reach, read_claim
from games.engine.bots.view_play import Strategy, key_of_hand
from games.engine.poker_dice.hands import RANK_INDEX, dice_key

BUCKETS = 5  # model odds are cut into this many equal buckets
PRIOR_BIDS = 10.0  # weight of the model's odds against the counts, in bids


def _bucket(p: float) -> int:
    return min(BUCKETS - 1, int(p * BUCKETS))


class TruthTable:
    """{feature: [true bids, bids]} and the shrunk truth rate of a feature."""

    def __init__(self) -> None:
        self.counts: dict[tuple, list[int]] = {}
        self._seen_round: object = None

    def add(self, feature: tuple, true: bool) -> None:
        c = self.counts.setdefault(feature, [0, 0])
        c[0] += true
        c[1] += 1

    def rate(self, feature: tuple, model: float) -> float:
        true, n = self.counts.get(feature, (0, 0))
        return (true + PRIOR_BIDS * model) / (n + PRIOR_BIDS)

    def new_round(self, view: dict) -> dict | None:
        """The view's last round if this table has not read it yet."""
        last = view.get("last_round")
        if not last:
            return None
        ident = (last["number"], repr(last.get("dice")), len(last["actions"]))
        if ident == self._seen_round:
            return None
        self._seen_round = ident
        return last


# --- common pool -----------------------------------------------------------------------


def _pool_table(view: dict, dice: dict[str, list[int]], responder: int, bid, bidder) -> Table:
    """The table as `responder` saw it when `bid` stood (its own cup; no shown dice)."""
    rules = view["rules"]
    return Table(
        me=responder,
        ones_wild=rules["ones_wild"],
        ones_bids=rules["ones_bids"],
        dice_per_player=rules["dice_per_player"],
        cup=list(dice[str(responder)]),
        shown={},
        hidden={int(s): len(d) for s, d in dice.items() if int(s) != responder},
        total=sum(len(d) for d in dice.values()),
        bid=bid,
        bidder=bidder,
    )


def _pool_feature(table: Table, actions: list[dict], index: int) -> tuple:
    action = actions[index]
    relation, step, _ = pool_bid_kind(actions[:index], action, table.ones_bids, table.total)
    return (relation, step, _bucket(table.p_at_least(action["quantity"], action["face"])))


def record_pool_round(truths: TruthTable, view: dict, last: dict) -> None:
    """Every opponent bid of `last` followed by another seat's action: features, truth."""
    if last.get("palifico") or last.get("shown"):
        return  # rounds with other counting rules or shown dice are left out
    dice = last["dice"]
    actions = last["actions"]
    wild = view["rules"]["ones_wild"]
    everything = [d for cup in dice.values() for d in cup]
    for i, action in enumerate(actions[:-1]):
        if action["type"] != "bid" or action["seat"] == view["your_seat"]:
            continue
        bid = (action["quantity"], action["face"])
        table = _pool_table(view, dice, actions[i + 1]["seat"], bid, action["seat"])
        count = sum(counts_toward(d, bid[1], wild) for d in everything)
        truths.add(_pool_feature(table, actions, i), count >= bid[0])


def calibrated_pool(params: PoolExploitParams, truths: TruthTable, learn: bool = True) -> Strategy:
    """The pool exploiter whose belief in the standing bid is the learnt truth rate."""

    def belief(view: dict, table: Table) -> float:
        actions = view["round"]["actions"]
        index = max(i for i, a in enumerate(actions) if a["type"] == "bid")
        plain = Table.from_view(view)  # the model's odds without reading anyone
        return truths.rate(_pool_feature(plain, actions, index), table.p_at_least(*table.bid))

    unbiased = replace(params, call_margin=0.0, exact_edge=0.0)
    return _learning(pool_exploiter(unbiased, belief), truths, record_pool_round, learn)


# --- poker dice ------------------------------------------------------------------------


def record_poker_round(truths: TruthTable, view: dict, last: dict) -> None:
    """Every opponent claim of `last`: was the box, as rolled for it, at least the claim?"""
    actions = last["actions"]
    rolls = last.get("rolls") or []
    rng = random.Random(0)  # the reach model samples; fixed so features are repeatable
    bids = 0
    for i, action in enumerate(actions):
        if action["type"] != "bid":
            continue
        bids += 1
        if action["seat"] == view["your_seat"] or bids > len(rolls):
            continue
        box = tuple(RANK_INDEX[r] for r in rolls[bids - 1])
        claim = read_claim({"round": {"actions": actions[: i + 1]}})
        feature = (*claim_kind(claim), _bucket(bidder_reach(claim, claim.key, rng)))
        truths.add(feature, dice_key(box) >= key_of_hand(action["hand"]))


def calibrated_poker(
    params: PokerExploitParams, truths: TruthTable, learn: bool = True
) -> Strategy:
    """The poker-dice exploiter whose belief in a claim is the learnt truth rate."""

    def belief(view: dict, rng: random.Random) -> float:
        claim = read_claim(view)
        model = bidder_reach(claim, claim.key, rng)
        return truths.rate((*claim_kind(claim), _bucket(model)), model)

    unbiased = replace(params, accept_margin=0.0)
    return _learning(poker_exploiter(unbiased, belief), truths, record_poker_round, learn)


def _learning(strategy: Strategy, truths: TruthTable, record: Callable, learn: bool) -> Strategy:
    """`strategy` that first reads any new finished round into `truths` (when learning)."""

    def choose(view: dict, legal: list[dict], rng: random.Random) -> dict:
        if learn:
            last = truths.new_round(view)
            if last is not None:
                record(truths, view, last)
        return strategy(view, legal, rng)

    return choose


def calibrated_reader(
    params: PoolExploitParams | PokerExploitParams, truths: TruthTable, learn: bool = True
) -> Strategy:
    """The calibrated reader for a params object of either family."""
    if isinstance(params, PokerExploitParams):
        return calibrated_poker(params, truths, learn)
    return calibrated_pool(params, truths, learn)
