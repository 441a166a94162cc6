"""Writes for matches, by job. Each service locks the match row (`locks`, which also
writes down the lock order), calls the pure engine, moves chips through the ledger
(`games.stakes`), writes the new state and its events, all in one transaction, and
returns a `MatchChange`.

* `lobby`         open, join, leave, seat a bot, start
* `play`          a seat's action and one handler per engine event it causes
* `turns`         bot moves, timeouts (task, sweep, forced by staff)
* `chat`          table talk
* `interventions` staff actions on tables: abort (with refunds and the round's reveal),
                  a banned player's seats
* `resign`        a player leaves a running match (the engine's forfeit)
* `endings`       abort by agreement in round 1; a win claimed over gone opponents
* `rematch`       a finished match played again: offer, accept, decline
* `challenges`    direct challenges: create, accept (the last starts the match),
                  decline, cancel, expire
* `seeks`         quick play: pair compatible seeks into a match, cancel, expire
* `publish`       the one exit: match events, account events and webhook deliveries
* `bot_players`   the server's bot-player accounts and their funding
* `locks`, `table`  shared: row locks (and their order), results and seats

The public services are re-exported here: `from games import services`.
"""

from games.services.challenges import (
    challenge_accept,
    challenge_cancel,
    challenge_create,
    challenge_decline,
)
from games.services.chat import message_hide, message_post
from games.services.endings import (
    match_abort_agree,
    match_abort_withdraw,
    match_claim_victory,
)
from games.services.interventions import (
    MatchAborted,
    PlayerBanned,
    match_abort,
    player_banned,
    round_reveal,
)
from games.services.lobby import (
    match_add_bot,
    match_create,
    match_join,
    match_leave,
    match_start,
)
from games.services.locks import match_lock
from games.services.play import action_submit
from games.services.rematch import match_rematch, match_rematch_decline
from games.services.resign import match_resign
from games.services.seeks import seek_cancel, seek_create
from games.services.table import MatchChange
from games.services.turns import (
    SWEEP_RETRY_SECONDS,
    ForcedTimeout,
    bot_play,
    sweep_due_turns,
    turn_force_timeout,
    turn_timeout,
)

__all__ = [
    "SWEEP_RETRY_SECONDS",
    "ForcedTimeout",
    "MatchAborted",
    "MatchChange",
    "PlayerBanned",
    "action_submit",
    "bot_play",
    "challenge_accept",
    "challenge_cancel",
    "challenge_create",
    "challenge_decline",
    "match_abort",
    "match_abort_agree",
    "match_abort_withdraw",
    "match_add_bot",
    "match_claim_victory",
    "match_create",
    "match_join",
    "match_leave",
    "match_lock",
    "match_rematch",
    "match_rematch_decline",
    "match_resign",
    "match_start",
    "message_hide",
    "message_post",
    "player_banned",
    "round_reveal",
    "seek_cancel",
    "seek_create",
    "sweep_due_turns",
    "turn_force_timeout",
    "turn_timeout",
]
