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

# Per preset, from bench/tune_expert.py: 2 rounds (40 x 300 exploiter games, 30 x 250
# expert games an opponent; seed 3); roll_off and perudo then 3 more rounds from there
# (30 x 300; seeds 5 and 6), after bench/bots.py --report found them the most readable.
PARAMS_BY_PRESET: dict[str, PoolParams] = {
    "milton_bradley": PoolParams(
        first_bid_weight=1.159,
        same_face_weight=-0.5,
        new_face_weight=0.755,
        jump_weight=0.466,
        wild_share=0.441,
        belief_cap=30.0,
        open_confidence=0.776,
        jump_confidence=0.661,
        bluff_rate=0.319,
        bluff_floor=0.6,
        bluff_jump=0.46,
        open_bluff=0.411,
        sandbag=0.6,
        call_margin=-0.136,
        exact_bonus=-0.083,
    ),
    "wild_ones": PoolParams(
        first_bid_weight=1.359,
        same_face_weight=-0.008,
        new_face_weight=0.542,
        jump_weight=0.364,
        wild_share=0.5,
        belief_cap=30.0,
        open_confidence=0.9,
        jump_confidence=0.604,
        bluff_rate=0.182,
        bluff_floor=0.585,
        bluff_jump=0.338,
        open_bluff=0.428,
        sandbag=0.581,
        call_margin=0.025,
        exact_bonus=-0.039,
    ),
    "roll_off": PoolParams(
        first_bid_weight=1.4,
        same_face_weight=-0.458,
        new_face_weight=-0.471,
        jump_weight=0.005,
        wild_share=0.902,
        belief_cap=30.0,
        open_confidence=0.756,
        jump_confidence=0.915,
        bluff_rate=0.0,
        bluff_floor=0.6,
        bluff_jump=0.022,
        open_bluff=0.497,
        sandbag=0.238,
        call_margin=-0.096,
        exact_bonus=0.023,
    ),
    "classic": PoolParams(
        first_bid_weight=1.05,
        same_face_weight=-0.107,
        new_face_weight=1.5,
        jump_weight=0.69,
        wild_share=0.72,
        belief_cap=24.308,
        open_confidence=0.662,
        jump_confidence=0.642,
        bluff_rate=0.229,
        bluff_floor=0.6,
        bluff_jump=0.372,
        open_bluff=0.497,
        sandbag=0.6,
        call_margin=-0.169,
        exact_bonus=0.084,
    ),
    "perudo": PoolParams(
        first_bid_weight=1.829,
        same_face_weight=-0.316,
        new_face_weight=1.256,
        jump_weight=1.278,
        wild_share=0.206,
        belief_cap=11.57,
        open_confidence=0.856,
        jump_confidence=0.881,
        bluff_rate=0.087,
        bluff_floor=0.327,
        bluff_jump=0.125,
        open_bluff=0.299,
        sandbag=0.133,
        call_margin=0.143,
        exact_bonus=0.218,
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


def expert_pool(
    view: dict, legal: list[dict], rng: random.Random, params: PoolParams | None = None
) -> dict:
    """The odds-reading strategy with this match's preset's tuning."""
    return odds_pool(view, legal, rng, params or params_for(view))
