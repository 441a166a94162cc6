"""The common-pool `expert`: the odds-reading strategy of `hard`, unreadable and tuned.

`hard` reads every bid as the truth and bids only the truth: its jumps are true, its
minimum raises are forced, and a bluff that names its face fools it. The expert plays the
same odds with the leaks closed, per preset: bluffs (openings and raises on faces it
lacks, jumping as far as a true raise would) and sure jumps made as the lowest raise, so
that neither the face nor the size of a bid tells what it holds; each kind of opponent bid
(first, same face, new face, jump) weighed by its own weight, and no face's odds raised
past `belief_cap`, so that a bluffer cannot steer it; a margin on calls and on exact
(calza). The values come from bench/tune_expert.py's search against exploiters built to
read it (bench/exploiters.py), the previous expert (`hard`) and `cautious`.
"""

from __future__ import annotations

import random

from ..presets import PRESETS
from .common_pool_strategies import PoolParams, odds_pool

# Per preset, from bench/tune_expert.py.
PARAMS_BY_PRESET: dict[str, PoolParams] = {
    "milton_bradley": PoolParams(),
    "wild_ones": PoolParams(),
    "roll_off": PoolParams(),
    "classic": PoolParams(),
    "perudo": PoolParams(),
}
# Each preset's options, to find the closest preset to a match with options of its own.
_PRESET_OPTIONS = {name: PRESETS[name].options() for name in PARAMS_BY_PRESET}


def params_for(view: dict) -> PoolParams:
    """The tuned parameters of the preset whose options are closest to this match's."""
    rules = view["rules"]

    def agreement(name: str) -> int:
        return sum(_PRESET_OPTIONS[name].get(k) == v for k, v in rules.items())

    return PARAMS_BY_PRESET[max(PARAMS_BY_PRESET, key=agreement)]


def expert_pool(
    view: dict, legal: list[dict], rng: random.Random, params: PoolParams | None = None
) -> dict:
    """The odds-reading strategy with this match's preset's tuning."""
    return odds_pool(view, legal, rng, params or params_for(view))
