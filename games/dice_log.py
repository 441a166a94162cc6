"""The dice of a finished match in the export's structured form (docs/API.md, "The dice
of an export"), made from its round records, its action log and the commitments it
published; and back to the flat `rolls` the engine's `replay` takes."""

from typing import Any

from games.engine import FORFEIT_LOG_ENTRY

# Poker dice: the engine draws a die face 1..6 for each rank 9..A.
POKER_RANKS = ("9", "10", "J", "Q", "K", "A")


def dice_record(
    *,
    family: str,
    opener_draw: int | None,
    rounds: list[dict[str, Any]],
    log: list[dict[str, Any]],
    committed: list[dict[str, Any]],
) -> dict[str, Any]:
    """`{opener_draw, rounds: [{number, roll_off?, deal, rerolls, commitments}]}` from the
    round records, the action log and the `dice_committed` events, oldest first."""
    hashes = _commitments_by_round(committed)
    played = iter(a for a in log if a.get("type") != FORFEIT_LOG_ENTRY)
    made = []
    for record in rounds:
        sent = [next(played) for _ in record["actions"]]
        round_dice = (_poker_round if family == "poker_dice" else _common_pool_round)(record, sent)
        round_dice["commitments"] = hashes.get(record["number"], {})
        made.append(round_dice)
    return {"opener_draw": opener_draw, "rounds": made}


def _commitments_by_round(committed: list[dict[str, Any]]) -> dict[int, dict[str, list[str]]]:
    """Per round, each key's commitments in the order published (one per change)."""
    out: dict[int, dict[str, list[str]]] = {}
    for event in committed:
        keys = out.setdefault(event["round"], {})
        for key, digest in event["dice_commitments"].items():
            seen = keys.setdefault(key, [])
            if not seen or seen[-1] != digest:
                seen.append(digest)
    return out


def _common_pool_round(record: dict[str, Any], sent: list[dict[str, Any]]) -> dict[str, Any]:
    rolls = record["rolls"]  # only seats that rerolled: their deal, then each new cup
    deal = {
        seat: list(rolls[seat][0]) if seat in rolls else dice
        for seat, dice in record["dice"].items()
    }
    rerolls, made_by = [], {}
    for index, action in enumerate(record["actions"]):
        if "shown" not in action:  # show_reroll, or a before_raise bid that showed dice
            continue
        seat = str(action["seat"])
        made_by[seat] = made_by.get(seat, 0) + 1
        rerolls.append(
            {
                "action": index,
                "seat": action["seat"],
                "shown": list(action["shown"]),
                "rolled": list(rolls[seat][made_by[seat]]),
            }
        )
    out: dict[str, Any] = {"number": record["number"], "deal": deal, "rerolls": rerolls}
    if "roll_off" in record:
        out["roll_off"] = record["roll_off"]
    return out


def _poker_round(record: dict[str, Any], sent: list[dict[str, Any]]) -> dict[str, Any]:
    boxes = iter(record["rolls"][1:])  # the box after each shake of the round
    rerolls = []
    for index, (action, as_sent) in enumerate(zip(record["actions"], sent, strict=True)):
        if action["type"] != "reroll":
            continue
        box = next(boxes)
        held = sorted(as_sent["hold"])
        rolled = [rank for i, rank in enumerate(box) if i not in held]
        rerolls.append(
            {"action": index, "seat": action["seat"], "held": held, "rolled": rolled, "box": box}
        )
    return {"number": record["number"], "deal": {"box": record["rolls"][0]}, "rerolls": rerolls}


def rolls_from_dice(family: str, dice: dict[str, Any]) -> list[int]:
    """The engine's flat `rolls` (replay's dice) from the structured form: the opener
    draw, then per round the roll-off, the deal in seat order and each reroll's new dice;
    poker ranks as die faces 1..6."""

    def faces(values: list) -> list[int]:
        if family == "poker_dice":
            return [POKER_RANKS.index(v) + 1 for v in values]
        return list(values)

    rolls = [] if dice["opener_draw"] is None else [dice["opener_draw"]]
    for round_dice in dice["rounds"]:
        for roll_off in round_dice.get("roll_off", []):
            rolls += [roll_off[seat] for seat in sorted(roll_off, key=int)]
        for seat in sorted(round_dice["deal"], key=lambda s: int(s) if s.isdigit() else 0):
            rolls += faces(round_dice["deal"][seat])
        for reroll in round_dice["rerolls"]:
            rolls += faces(reroll["rolled"])
    return rolls
