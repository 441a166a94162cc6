"""The games API, one module per resource (`games/urls.py` maps every path to one):

* `matches`     the lobby (list, create), a match, join, leave, bots, start, its rounds,
                its chat
* `actions`     a seat's action on its turn, resigning
* `history`     a player's matches, a finished match's export
* `challenges`  direct challenges: create, list, accept, decline, cancel
* `seeks`       quick play: seek, list, one seek, withdraw
* `rulesets`    the presets, and the rules in plain words
* `leaderboard` players by chips or rating
* `streams`     a match's events: the long poll and the Server-Sent Events stream
* `base`        what they share: a match's answer, newest-first pages

Every view reads its input one way (`core.inputs.validated` for a body,
`core.query.parse_query` for a query), calls services one way (`from games import
services`), reads through the read modules (`selectors`, `history`, `matchmaking`), and
documents its errors from the classes its services raise (`core.schema.problems`).
"""
