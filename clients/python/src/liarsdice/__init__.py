"""A client for the Liar's Dice game server's public API (docs/API.md), and a bot kit on top.

It imports nothing from the server: it speaks only what the API promises.
"""
