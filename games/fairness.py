"""Provably fair dice: a commitment per seat when dice are rolled, the salt at the end.

commitment = sha256("<salt>:<d1>,<d2>,...") over the dice a seat holds (cup, then the
dice shown face up), exactly as the finished round lists them under `dice`; in poker dice
over the box (key "box", rank names in box order). A reroll publishes a new commitment
with the same salt. docs/API.md ("The dice of an export") states the rule for every case.
"""

import hashlib
import random
import secrets

# Dice come from the operating system's CSPRNG.
SECURE_DICE = random.SystemRandom()


def new_salt() -> str:
    return secrets.token_hex(16)


def commitment(salt: str, dice: list) -> str:
    return hashlib.sha256(f"{salt}:{','.join(str(d) for d in dice)}".encode()).hexdigest()
