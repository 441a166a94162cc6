"""Factories for users and matches. A match is built through the public games services
(match_create, match_join, match_start, action_submit, bot_play, match_abort), as
players and staff would build it, so it is never in a state play cannot reach:

    LobbyFactory()                                 an open lobby, one seat still free
    LobbyFactory(private=True)                     the same, private (joined by invite code)
    ActiveMatchFactory(ruleset="perudo", players=3, bots=["cautious"])
                                                   started, at its first turn
    FinishedMatchFactory(players=[ann, bob])       played to its end
    FinishedMatchFactory(players=[ann, bob], resigned=[ann])
                                                   won by bob at once
    AbortedMatchFactory()                          started, then aborted by staff
    SeatFactory(match=lobby)                       one more player joins (a new one)
    SeatFactory(match=lobby, bot="expert")         the creator seats a bot
    fund_house(5000)                               a moderator funds the house's bankroll
                                                   (what stakes bots at tables with a buy-in)
    establish(user, rulesets=["classic"])          a player with an established record

`players` is a number of new players (`PlayerFactory`, with their starting chips) or a
list of users, the first one creating the match; `bots` are strategies, seated right
after the creator (as `match_create` does). The other keywords are `match_create`'s.
"""

import random

import factory
from django.conf import settings

from accounts.models import RatedOpponent, Rating, User
from games import engine, services
from games.engine import bots
from games.models import Match, Seat
from games.services.resign import match_resign

DEFAULT_PASSWORD = "correct-horse-battery-staple"
# Passes every password validator (AUTH_PASSWORD_VALIDATORS and ours).
STRONG_PASSWORD = "a-Long-and-unusual-passphrase-42"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    password = factory.PostGenerationMethodCall("set_password", DEFAULT_PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class PlayerFactory(UserFactory):
    """A user with the starting chips a registered account gets."""

    @factory.post_generation
    def chips(obj, create, extracted, **kwargs):
        if create:
            from ledger.services import signup_grant

            signup_grant(user=obj, amount=extracted)


def fund_house(chips: int, *, by: User | None = None) -> User:
    """Funds the house's bankroll as a moderator does: a staff adjustment with a reason
    (bots play for chips only on it: `games.stakes.house_stake_check`). Returns the staff
    member who did it."""
    from ledger import services as ledger

    staff = by or UserFactory(is_staff=True)
    ledger.adjustment(account=ledger.house_account(), amount=chips, reason="bankroll", actor=staff)
    return staff


def people_at(match: Match) -> list[User]:
    """The people (not the server's bots) seated at `match`, in seat order."""
    seats = match.seats.select_related("player").order_by("seat")
    return [s.player for s in seats if not s.player.bot_strategy]


def _seat_count(players: int | list[User], bots: list[str]) -> int:
    return (players if isinstance(players, int) else len(players)) + len(bots)


class LobbyFactory(factory.Factory):
    """An open lobby: created by the first player, joined by the others, bots seated; one
    seat stays free unless `max_players` says otherwise (a full table starts)."""

    class Meta:
        model = Match

    players = 1
    bots = ()
    ruleset = "classic"
    options = None
    max_players = factory.LazyAttribute(lambda o: _seat_count(o.players, o.bots) + 1)
    turn_seconds = 60
    buy_in = 0
    ante = 0
    private = False
    on_timeout = Match.TimeoutPolicy.AUTO
    max_timeouts = 3
    opener_seat = None

    @classmethod
    def _create(cls, model_class, *, players, bots, **fields) -> Match:
        users = [PlayerFactory() for _ in range(players)] if isinstance(players, int) else players
        creator, *others = users
        match = services.match_create(user=creator, bots=list(bots), **fields).match
        for user in others:
            services.match_join(match_id=match.pk, user=user, invite_code=match.invite_code)
        match = cls._advance(Match.objects.get(pk=match.pk), creator)
        match.refresh_from_db()
        return match

    @classmethod
    def _advance(cls, match: Match, creator: User) -> Match:
        assert match.status == Match.Status.OPEN, f"the lobby is {match.status}"
        return match


class ActiveMatchFactory(LobbyFactory):
    """A started match at its first turn: the seats fill the table (which starts it), or
    the creator starts it with seats to spare (`max_players` larger)."""

    players = 2
    max_players = factory.LazyAttribute(lambda o: _seat_count(o.players, o.bots))

    @classmethod
    def _advance(cls, match: Match, creator: User) -> Match:
        if match.status == Match.Status.OPEN:
            match = services.match_start(match_id=match.pk, user=creator).match
        assert match.status == Match.Status.ACTIVE, f"the match is {match.status}"
        return match


class FinishedMatchFactory(ActiveMatchFactory):
    """A match played to its end: each person's turn by `action_submit`, choosing at
    random (from `seed`) among the legal actions, each bot's by `bot_play` (no worker
    needed); fewer dice (`options={"dice_per_player": 2}`) make it quicker. The players
    in `resigned` resign at the start (`match_resign`): a quick end, won by the rest
    when one is left."""

    seed = 0
    resigned = ()

    @classmethod
    def _create(cls, model_class, *, seed, resigned, **fields) -> Match:
        match = super()._create(model_class, **fields)
        for user in resigned:
            match_resign(match_id=match.pk, user=user)
        play_match_out(match, random.Random(seed))
        match.refresh_from_db()
        return match


def play_match_out(match: Match, rng: random.Random, max_actions: int = 5000) -> None:
    """Plays a running `match` to its end in this process (no worker): people at random
    from `rng`, bots by `bot_play`."""
    for _ in range(max_actions):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return
        seat = match.seats.select_related("player").get(seat=match.turn_seat)
        if seat.player.bot_strategy:
            assert services.bot_play(match_id=match.pk, version=match.version)
            continue
        state = engine.state_from_json(match.state)
        view = engine.view_for(state, seat.seat)
        action = bots.choose_action("random", view, engine.legal_actions(state, seat.seat), rng)
        services.action_submit(match_id=match.pk, user=seat.player, action=action)
    raise AssertionError(f"match {match.pk} did not end in {max_actions} actions")


class AbortedMatchFactory(ActiveMatchFactory):
    """A started match a staff member aborted (`match_abort`): chips given back."""

    moderator = factory.SubFactory(UserFactory, is_staff=True)

    @classmethod
    def _create(cls, model_class, *, moderator, **fields) -> Match:
        match = super()._create(model_class, **fields)
        services.match_abort(match_id=match.pk, actor=moderator)
        match.refresh_from_db()
        return match


class SeatFactory(factory.Factory):
    """A seat taken in an open `match`: by `player` joining (a new player unless given),
    or, with `bot`, a bot of that strategy seated by the match's creator. Filling the
    table starts the match, as it does in play."""

    class Meta:
        model = Seat

    match = factory.SubFactory(LobbyFactory)
    player = None
    bot = None

    @classmethod
    def _create(cls, model_class, *, match, player, bot) -> Seat:
        if bot is not None:
            services.match_add_bot(match_id=match.pk, user=match.created_by, strategy=bot)
            return match.seats.filter(player__bot_strategy=bot).latest("pk")
        player = player or PlayerFactory()
        services.match_join(match_id=match.pk, user=player, invite_code=match.invite_code)
        return match.seats.get(player=player)


def establish(user: User, *, rulesets: list[str] = (), opponents: int | None = None) -> User:
    """Gives `user` the record of an established player (docs/API.md, "Ratings that
    cannot be farmed"): `RATING_ESTABLISHED_GAMES` rated matches overall and in each of
    `rulesets`, at the newcomer's mu and sigma, and `opponents` (by default
    `LEADERBOARD_MIN_OPPONENTS`) distinct established opponents met in each scope, so
    the leaderboard lists them. Written directly: playing it out would take dozens of
    matches for each player."""
    games = settings.RATING_ESTABLISHED_GAMES
    count = settings.LEADERBOARD_MIN_OPPONENTS if opponents is None else opponents
    met = [UserFactory(games_played=games) for _ in range(count)]
    User.objects.filter(pk=user.pk).update(games_played=games)
    for ruleset in rulesets:
        Rating.objects.update_or_create(user=user, ruleset=ruleset, defaults={"games": games})
    RatedOpponent.objects.bulk_create(
        RatedOpponent(user=user, opponent=o, ruleset=scope)
        for o in met
        for scope in [RatedOpponent.OVERALL, *rulesets]
    )
    user.refresh_from_db()
    return user
