"""A complete bot on the liarsdice kit (pip install ./clients/python): it accepts every
challenge and plays all its matches at once until Ctrl-C.

    python examples/bot.py --username my-bot --password 'a long secret'
"""

import argparse
import random
from collections import Counter

from liarsdice import BotRunner, Client, Match, accept_all


class Estimator:
    """Bids on the face it holds most of; calls a bid that looks unlikely."""

    def act(self, match: Match) -> dict:
        bid, mine = match.round.current_bid, match.your_dice
        if match.family == "poker_dice":  # keep pairs, then name the lowest beating hand
            if reroll := match.legal("reroll"):
                pairs = [i for i, rank in enumerate(mine) if Counter(mine)[rank] > 1]
                return {"type": "reroll", "hold": reroll.hold_required or pairs}
            if match.legal("challenge") and (not match.legal("accept") or random.random() < 0.3):
                return {"type": "challenge"}
            if rule := match.legal("bid"):
                turn = {"direction": "left"} if rule.needs_direction else {}
                return {"type": "bid", "hand": rule.min_hand, **turn}
            return {"type": "accept"}
        wild = match.rules["ones_wild"]

        def count(face: int) -> float:  # held, plus the unseen dice's share
            share = 1 / 3 if wild and face != 1 else 1 / 6
            held = sum(d == face or (wild and face != 1 and d == 1) for d in mine)
            return held + (match.dice_in_play - len(mine)) * share

        challenge = match.legal("challenge")
        rule = match.legal("bid")
        if challenge and bid and (not rule or bid.quantity > count(bid.face) + 1):
            return {"type": "challenge", "target_seat": bid.seat}
        if rule:
            least = {int(face): q for face, q in rule.min_quantity_by_face.items()}
            face = max(least, key=lambda f: (count(f) - least[f], f))
            return {"type": "bid", "face": face, "quantity": least[face]}
        return {"type": "exact" if match.legal("exact") else "pass"}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    client = Client(args.base_url)
    client.login_or_register(args.username, args.password, is_bot=True)
    BotRunner(Estimator(), client, accept=accept_all).run()
