"""Check a finished match's export (`GET /api/v1/matches/{id}/export/`) without the
server: every dice commitment against its salt, every die against the round records,
every bid a legal raise under the match's rules, every round's result recomputed from
the revealed dice, who opened each round, and the final winners and places.

Written from docs/RULES.md and docs/API.md ("The dice of an export"); standard library
only. `verify(export)` never raises on a bad export: it returns a `Report` whose
`problems` name the round each was found in, in the order found. Each round is
checked against what the export says happened before it, so a change to an export is
reported in the round it was made in; a changed result shows in the next round too
(its deal or its opener no longer follows from it).

    report = verify(requests.get(url).json())
    if not report.ok:
        print(report)
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

RANKS = ("9", "10", "J", "Q", "K", "A")
BOX_SIZE = 5


@dataclass(frozen=True)
class Problem:
    round: int | None  # None: the match as a whole
    what: str

    def __str__(self) -> str:
        return f"round {self.round}: {self.what}" if self.round is not None else self.what


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    rounds_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def rounds(self) -> set[int | None]:
        """The rounds with a problem."""
        return {p.round for p in self.problems}

    def __str__(self) -> str:
        head = f"{self.rounds_checked} rounds checked: " + ("ok" if self.ok else "problems")
        return "\n".join([head, *(f"  {p}" for p in self.problems)])


def commitment(salt: str, dice: list) -> str:
    """sha256 of "<salt>:<d1>,<d2>,..." in hex (docs/API.md)."""
    return hashlib.sha256(f"{salt}:{','.join(str(d) for d in dice)}".encode()).hexdigest()


def verify(export: dict[str, Any]) -> Report:
    """Replay `export` and report every mismatch (an empty list: it checks out)."""
    report = Report()
    checker: Match | None = None
    try:
        family = PokerDice if export["family"] == "poker_dice" else CommonPool
        checker = family(export, report)
        checker.run()
    except (KeyError, IndexError, TypeError, ValueError, StopIteration, AttributeError) as exc:
        where = checker.number if checker is not None else None
        report.problems.append(Problem(where, f"malformed export: {exc!r}"))
    return report


def flat_rolls(family: str, dice: dict[str, Any]) -> list[int]:
    """The structured dice as the engine's flat `replay.rolls` (deprecated field)."""

    def faces(values: list) -> list[int]:
        return [RANKS.index(v) + 1 for v in values] if family == "poker_dice" else list(values)

    out = [] if dice["opener_draw"] is None else [dice["opener_draw"]]
    for rnd in dice["rounds"]:
        for roll_off in rnd.get("roll_off", []):
            out += [roll_off[s] for s in sorted(roll_off, key=int)]
        for key in sorted(rnd["deal"], key=lambda k: int(k) if k.isdigit() else 0):
            out += faces(rnd["deal"][key])
        for reroll in rnd["rerolls"]:
            out += faces(reroll["rolled"])
    return out


class Match:
    """What both families check alike; a family fills in `first_opener`, `round_dice`,
    `bid_problem` and `settle`."""

    def __init__(self, export: dict[str, Any], report: Report) -> None:
        self.export = export
        self.rules = export["rules"]
        self.report = report
        self.n = export["replay"]["n_players"]
        self.live = [True] * self.n
        self.eliminations: list[list[int]] = []
        self.number: int | None = None

    def problem(self, what: str) -> None:
        self.report.problems.append(Problem(self.number, what))

    def expect(self, name: str, got: object, want: object) -> None:
        if got != want:
            self.problem(f"{name} is {got!r}, expected {want!r}")

    def next_live(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            if self.live[(seat + step) % self.n]:
                return (seat + step) % self.n
        return seat

    def live_from(self, seat: int) -> int:
        return seat if self.live[seat] else self.next_live(seat)

    def run(self) -> None:
        records, dice = self.export["rounds"], self.export["dice"]
        if "rolls" in self.export["replay"]:
            self.expect(
                "replay.rolls",
                self.export["replay"]["rolls"],
                flat_rolls(self.export["family"], dice),
            )
        if len(records) != len(dice["rounds"]):
            self.problem("rounds and dice.rounds differ in length")
        opener = self.first_opener(records[0])
        for record, rnd in zip(records, dice["rounds"], strict=False):
            self.number = record["number"]
            self.report.rounds_checked += 1
            self.expect("dice.rounds number", rnd["number"], record["number"])
            self.expect("opener_seat", record["opener_seat"], opener)
            materials = self.round_dice(record, rnd)
            self.check_commitments(record, rnd, materials)
            self.check_bids(record)
            opener = self.settle(record)
        self.number = None
        self.check_end()

    def check_commitments(self, record: dict, rnd: dict, materials: dict[str, list]) -> None:
        """Each key's dice, as they stood after the deal and after each change, opened
        with the round's salt: the commitments published, and the record's last one."""
        published = rnd["commitments"]
        self.expect("commitment keys", sorted(published), sorted(materials))
        for key, states in materials.items():
            salt = record.get("salts", {}).get(key)
            if salt is None:
                self.problem(f"no salt for {key!r}")
                continue
            distinct = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
            want = [commitment(salt, s) for s in distinct]
            if published.get(key) != want:
                self.problem(f"the commitments of {key!r} do not open to its dice")
            if record.get("dice_commitments", {}).get(key) != want[-1]:
                self.problem(f"the record's commitment of {key!r} does not open to its dice")

    def check_bids(self, record: dict) -> None:
        """Every bid of the round tops the one standing before it (docs/RULES.md 1.2, 1.10
        and 2), naming the action by its index in the round's `actions`."""
        bids = [(i, a) for i, a in enumerate(record["actions"]) if a["type"] == "bid"]
        for n, (i, action) in enumerate(bids):
            why = self.bid_problem(record, action, [a for _, a in bids[:n]])
            if why:
                self.problem(f"the bid at action {i} {why}")

    def bid_problem(self, record: dict, bid: dict, before: list[dict]) -> str | None:
        raise NotImplementedError

    def out(self, seats: list[int]) -> None:
        for s in seats:
            self.live[s] = False
        if seats:
            self.eliminations.append(sorted(seats))

    def check_end(self) -> None:
        winners = [s for s in range(self.n) if self.live[s]]
        places = {str(s): 1 for s in winners}
        better = len(winners)
        for group in reversed(self.eliminations):
            for s in group:
                places[str(s)] = better + 1
            better += len(group)
        self.expect("result.winner_seats", sorted(self.export["result"]["winner_seats"]), winners)
        self.expect("result.placements", self.export["result"]["placements"], places)


class CommonPool(Match):
    def __init__(self, export: dict[str, Any], report: Report) -> None:
        super().__init__(export, report)
        self.counts = [self.rules["dice_per_player"]] * self.n
        self.palifico_done: set[int] = set()
        self.palifico_next = False

    def first_opener(self, record: dict) -> int:
        rule, replay = self.rules["first_opener"], self.export["replay"]
        draw = self.export["dice"]["opener_draw"]
        if rule == "random":
            return draw if draw is not None else -1
        if rule == "creator":
            named = replay["opener_seat"]
            return replay["creator_seat"] if named is None else named
        # roll_off: everyone rolls one die; the tied highest roll again (RULES 1.4).
        rolling = [str(s) for s in range(self.n)]
        for roll in record.get("roll_off", []):
            if sorted(roll, key=int) != rolling:
                return -1
            top = max(roll.values())
            rolling = [s for s in rolling if roll[s] == top]
        return int(rolling[0]) if len(rolling) == 1 else -1

    def round_dice(self, record: dict, rnd: dict) -> dict[str, list]:
        """Follows every cup from the deal through each reroll; checks them against the
        record and returns each seat's dice (cup, then shown) after each change."""
        want_deal = {str(s): c for s, c in enumerate(self.counts) if self.live[s]}
        dealt = {k: len(v) for k, v in rnd["deal"].items()}
        self.expect("dealt dice per seat", dealt, want_deal)
        # Go on from the dice the round holds, and from who holds any: a wrong count or a
        # seat wrongly in or out is reported once, here, not again in every later round.
        self.counts = [dealt.get(str(s), 0) for s in range(self.n)]
        self.live = [count > 0 for count in self.counts]
        self.expect("palifico", record.get("palifico", False), self.palifico_next)
        cups = {k: list(v) for k, v in rnd["deal"].items()}
        shown: dict[str, list] = {k: [] for k in cups}
        materials = {k: [list(v)] for k, v in cups.items()}
        for reroll in rnd["rerolls"]:
            key, up = str(reroll["seat"]), reroll["shown"]
            action = record["actions"][reroll["action"]]
            if action.get("seat") != reroll["seat"] or action.get("shown") != up:
                self.problem(f"reroll at action {reroll['action']} is not the one played")
            left = Counter(cups[key]) - Counter(up)
            if sum(left.values()) != len(cups[key]) - len(up) or len(reroll["rolled"]) != len(
                cups[key]
            ) - len(up):
                self.problem(f"seat {key} showed dice it did not hold or rerolled too many")
            cups[key], shown[key] = list(reroll["rolled"]), shown[key] + list(up)
            materials[key].append(cups[key] + shown[key])
        self.expect("dice", record["dice"], {k: cups[k] + shown[k] for k in cups})
        self.expect("shown", record["shown"], {k: v for k, v in shown.items() if v})
        return materials

    def bid_key(self, quantity: int, face: int) -> tuple[int, ...]:
        """The bid's place in the order of RULES 1.2 (`ones_bids`)."""
        order = self.rules["ones_bids"]
        if order == "face":
            return (quantity, face)
        if face == 1:  # half: between numbers 2k-1 and 2k; perudo: after 2k
            return (2 * quantity - (order != "perudo"), 1)
        return (quantity, 0, face)

    def bid_problem(self, record: dict, bid: dict, before: list[dict]) -> str | None:
        quantity, face = bid["quantity"], bid["face"]
        order, palifico = self.rules["ones_bids"], record.get("palifico", False)
        if not 1 <= quantity <= sum(self.counts) or not 1 <= face <= 6:
            return f"({quantity}, {face}) names more dice than are in play or no face"
        if face == 1 and order == "forbidden":
            return "is on ones, which these rules forbid"
        if not before:
            if face == 1 and order == "perudo" and not palifico:
                return "opens on aces outside a palifico round"
            return None
        if palifico and face != before[0]["face"]:
            return "changes the face of a palifico round"
        last = before[-1]
        if self.bid_key(quantity, face) <= self.bid_key(last["quantity"], last["face"]):
            return "does not top the bid standing before it"
        return None

    def settle(self, record: dict) -> int:
        """Recomputes the result; updates dice, seats out and palifico; returns the
        next round's opener."""
        result = record["result"]
        if result is None:  # voided by a forfeit: nobody loses dice, the seat is out
            seat = record["voided_by"]
            self.counts[seat] = 0
            self.out([seat])
            self.palifico_next = bool(record.get("palifico"))
            return self.live_from(record["opener_seat"])
        want = self.result(record)
        for name in ("type", "bid", "bidder_seat", "challenger_seat", "target_seat"):
            self.expect(f"result.{name}", result[name], want[name])
        for name in ("actual_count", "losses", "gains", "winner_seat"):
            self.expect(f"result.{name}", result[name], want[name])
        # Later rounds are checked against what this record says happened, so that each
        # departure from the rules is reported in the round that makes it.
        losses = {int(s): n for s, n in result["losses"].items()}
        for s, n in losses.items():
            self.counts[s] = max(0, self.counts[s] - n)
        for s, n in result["gains"].items():
            self.counts[int(s)] += n
        self.out([s for s in losses if self.counts[s] == 0])
        first_one = [s for s in losses if self.counts[s] == 1 and s not in self.palifico_done]
        self.palifico_next = bool(self.rules.get("palifico")) and bool(first_one)
        if self.palifico_next:
            self.palifico_done.update(first_one)
        return self.next_opener(result, losses)

    def result(self, record: dict) -> dict[str, Any]:
        """The result the rules give for the round's last action on its standing bid."""
        rules, actions = self.rules, record["actions"]
        bid = next(a for a in reversed(actions) if a["type"] == "bid")
        last = actions[-1]
        caller, q, face = last["seat"], bid["quantity"], bid["face"]
        table = [d for dice in record["dice"].values() for d in dice]
        wild = rules["ones_wild"] and face != 1 and not record.get("palifico")
        actual = table.count(face) + (table.count(1) if wild else 0)
        losses: dict[int, int] = {}
        gains: dict[int, int] = {}
        kind, target = last["type"], bid["seat"]
        if kind == "challenge" and last["target_seat"] != bid["seat"]:
            # RULES 1.7: a challenged passer loses one die if two of their dice match.
            kind, target = "pass_challenge", last["target_seat"]
            actual = max(Counter(record["dice"][str(target)]).values())
            loser, winner = (target, caller) if actual >= 2 else (caller, target)
            losses[loser] = 1
        elif kind == "exact":  # RULES 1.6
            right = actual == q
            if right and self.counts[caller] < rules["dice_per_player"]:
                gains[caller] = 1
            if not right:
                losses[caller] = 1
            winner = caller if right else bid["seat"]
        else:  # RULES 1.3
            if actual != q:
                loser = caller if actual > q else bid["seat"]
                amount = abs(q - actual) if rules["loss"] == "difference" else 1
                losses[loser] = min(amount, self.counts[loser])
            elif rules["exact_outcome"] == "challenger_loses_one":
                losses[caller] = 1
            else:
                for s in range(self.n):
                    spared = rules["exact_spares_last_die"] and self.counts[s] == 1
                    if self.live[s] and s != bid["seat"] and not (spared and s != caller):
                        losses[s] = 1
            winner = bid["seat"] if actual >= q else caller
        return {
            "type": kind,
            "bid": {"quantity": q, "face": face},
            "bidder_seat": bid["seat"],
            "challenger_seat": caller,
            "target_seat": target,
            "actual_count": actual,
            "losses": {str(s): n for s, n in losses.items()},
            "gains": {str(s): n for s, n in gains.items()},
            "winner_seat": winner,
        }

    def next_opener(self, result: dict, losses: dict[int, int]) -> int:
        """RULES 1.4, `next_opener`."""
        rule, caller = self.rules["next_opener"], result["challenger_seat"]
        if rule == "challenge_winner":
            return self.live_from(result["winner_seat"])
        if rule == "challenger" or not losses:
            return self.live_from(caller)
        bidder = result["bidder_seat"]
        clockwise = sorted(losses, key=lambda s: (s - bidder) % self.n)
        playing = [s for s in clockwise if self.live[s]]
        if playing:
            return min(playing, key=lambda s: self.counts[s])
        return self.live_from(clockwise[-1])


def hand_key(named: list[int]) -> tuple[int, ...]:
    """RULES 2: (category, the ranks that make it, kickers high to low, -1 unnamed)."""
    if not named:
        return (0,)  # junk
    counts = Counter(named)
    groups = sorted(counts.items(), key=lambda rc: (-rc[1], -rc[0]))
    (r1, c1), c2 = groups[0], groups[1][1] if len(groups) > 1 else 0
    singles = sorted((r for r, c in groups if c == 1), reverse=True)

    def pad(k: list[int], size: int) -> list[int]:
        return k + [-1] * (size - len(k))

    if len(named) == BOX_SIZE and c1 == 1 and max(named) - min(named) == 4:
        return (5, max(named))  # straight
    if c1 == 5:
        return (8, r1)
    if c1 == 4:
        return (7, r1, *pad(singles, 1))
    if c1 == 3 and c2 == 2:
        return (6, r1, groups[1][0])
    if c1 == 3:
        return (4, r1, *pad(singles, 2))
    if c1 == 2 and c2 == 2:
        return (3, r1, groups[1][0], *pad(singles, 1))
    if c1 == 2:
        return (2, r1, *pad(singles, 3))
    return (1, r1, *pad(singles[1:], 4))


def named_ranks(bid: dict) -> list[int]:
    """The ranks a poker-dice bid names, as indexes into RANKS (junk names none)."""
    return [RANKS.index(r) for r in bid["hand"] if r not in (None, "junk")]


class PokerDice(Match):
    def __init__(self, export: dict[str, Any], report: Report) -> None:
        super().__init__(export, report)
        self.lives = [self.rules["lives"]] * self.n

    def first_opener(self, record: dict) -> int:
        named, draw = self.export["replay"]["opener_seat"], self.export["dice"]["opener_draw"]
        opener = named if named is not None else draw
        return -1 if opener is None else opener

    def bid_problem(self, record: dict, bid: dict, before: list[dict]) -> str | None:
        if bid["hand"] == ["junk"] and before:
            return "claims junk after the opening bid"
        if before and hand_key(named_ranks(bid)) <= hand_key(named_ranks(before[-1])):
            return "does not top the hand bid before it"
        return None

    def round_dice(self, record: dict, rnd: dict) -> dict[str, list]:
        """Follows the box through each shake: held dice stay, the rest are the new ones."""
        box = list(rnd["deal"]["box"])
        boxes = [box]
        for reroll in rnd["rerolls"]:
            new, fresh = list(reroll["box"]), iter(reroll["rolled"])
            if record["actions"][reroll["action"]].get("type") != "reroll":
                self.problem(f"action {reroll['action']} is not a reroll")
            if len(reroll["rolled"]) + len(reroll["held"]) != BOX_SIZE or any(
                new[i] != (box[i] if i in reroll["held"] else next(fresh)) for i in range(BOX_SIZE)
            ):
                self.problem(f"the shake at action {reroll['action']} does not add up")
            box = new
            boxes.append(box)
        self.expect("dice.box", record["dice"]["box"], box)
        self.expect("rolls", record["rolls"], boxes)
        return {"box": boxes}

    def settle(self, record: dict) -> int:
        result = record["result"]
        if result is None:  # a forfeit: the seat buys the jug at once
            self.out([record["voided_by"]])
            return -1
        bid = next(a for a in reversed(record["actions"]) if a["type"] == "bid")
        caller = record["actions"][-1]["seat"]
        box = [RANKS.index(r) for r in record["dice"]["box"]]
        held = hand_key(box) >= hand_key(named_ranks(bid))
        loser, winner = (caller, bid["seat"]) if held else (bid["seat"], caller)
        counts = Counter(box)
        best_first = sorted(box, key=lambda r: (-counts[r], -r))
        self.expect("result.bid", result["bid"], {"hand": bid["hand"]})
        self.expect("result.bidder_seat", result["bidder_seat"], bid["seat"])
        self.expect("result.challenger_seat", result["challenger_seat"], caller)
        self.expect("result.actual_hand", result["actual_hand"], [RANKS[r] for r in best_first])
        self.expect("result.losses", result["losses"], {str(loser): 1})
        self.expect("result.winner_seat", result["winner_seat"], winner)
        loser = int(next(iter(result["losses"]), loser))  # as the record says (see CommonPool)
        self.lives[loser] -= 1
        if self.lives[loser] == 0:
            self.out([loser])
        return loser  # the loser of a life is player one of the next round
