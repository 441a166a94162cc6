"""The server's own bot players: one account per strategy, funded by the house."""

from django.contrib.auth.hashers import make_password

from accounts.models import User
from games import stakes
from games.engine import strategies as engine_strategies

STRATEGIES = tuple(engine_strategies.STRATEGIES)


def bot_account(strategy: str, *, index: int = 0) -> User:
    username = f"bot-{strategy}" if index == 0 else f"bot-{strategy}-{index}"
    bot, _ = User.objects.get_or_create(
        username=username,
        defaults={"is_bot": True, "bot_strategy": strategy, "password": make_password(None)},
    )
    return bot


def fund_bot(*, bot: User, amount: int) -> None:
    """Tops a bot's wallet up from the house so it can cover a buy-in."""
    stakes.bot_top_up(bot=bot, amount=amount)
