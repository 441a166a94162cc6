"""Settings shared by every environment, read from environment variables.

Defaults are the safe production ones: DEBUG is off, a secret key is required when
DEBUG is off, and cookies are secure. `make run` sets DEBUG=1 and a local secret for a
developer machine (see scripts/stack.py).
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-local-development-only"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "accounts",
    "ledger",
    "games",
    "tournaments",
    "moderation",
    "web",
]

MIDDLEWARE = [
    "core.middleware.RequestIdLoggingMiddleware",
    "core.middleware.RateLimitHeadersMiddleware",
    "core.middleware.ProblemFallbackMiddleware",
    "core.middleware.DependencyOutageMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.RequestGuardMiddleware",
    "core.middleware.StaticFilesMiddleware",
    # Django's sessions, auth and messages do their work for the admin and the web pages;
    # API paths (Bearer tokens) skip it (core.middleware).
    "core.middleware.PageSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "core.middleware.PageAuthenticationMiddleware",
    "core.middleware.PageMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# PostgreSQL only: the ledger relies on its locks, constraints and triggers.
DATABASES = {"default": env.db_url("DATABASE_URL")}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL.")
# Persistent connections: each worker thread (Celery, tests) reuses its connection. The
# ASGI web process (config/asgi.py sets DATABASE_POOL) runs each request's sync code in
# a thread of its own, so it borrows connections from a pool instead.
if env.bool("DATABASE_POOL", default=False):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": env.int("DATABASE_POOL_SIZE", default=16),
        # How long a request waits for a connection, also when PostgreSQL is down (it
        # then answers 503 with Retry-After): longer than any healthy wait, short enough
        # that a client hears of an outage before its own timeout.
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
    }
    # No health check on every borrow: it is a round trip per borrow, and a live request
    # borrows twice. Measured with bench/api_load.py (32 clients, 2 web processes, same
    # quiet machine): 29.9 -> 37.8 actions/s, web CPU per action 42.8 -> 32.0 ms. The
    # price: after a PostgreSQL restart each dead pooled connection fails one request
    # (503 with Retry-After) and the pool replaces it.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool(
        "DATABASE_POOL_HEALTH_CHECKS", default=False
    )
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Threads per web process running the sync views (config/asgi.py); each holds a pooled
# connection only while it serves a request.
WEB_THREADS = env.int("WEB_THREADS", default=8)
DATABASES["default"]["ATOMIC_REQUESTS"] = False  # services own their transactions

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "accounts.passwords.NotBlankValidator"},
    {"NAME": "accounts.passwords.SiteNameValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
# The web process serves its own static files (play page, admin, Swagger UI) through WhiteNoise, so
# the docs work offline with no separate web server.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Redis serves the cache and the throttles' atomic counters (core.ratelimit), shared by
# every process: REDIS_URL, else the broker's URL when the broker is Redis.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or "redis://127.0.0.1:6379/0"
REDIS_URL = env.str("REDIS_URL", default="")
if not REDIS_URL and CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    REDIS_URL = CELERY_BROKER_URL
if not REDIS_URL:
    raise ImproperlyConfigured("Set REDIS_URL: throttling keeps its counters in Redis.")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="liarsdice"),
    }
}

# Celery: JSON only, late acknowledgement, bounded task time.
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 60
CELERY_TASK_SOFT_TIME_LIMIT = 50
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker waits out a broker outage of any length instead of exiting after 100 tries.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Redis redelivers an unacknowledged task after this; no task ETA may exceed it.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", 3600)}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        # Each operation's `token_scope` (accounts.scopes), the live views' too.
        "accounts.permissions.TokenHasScope",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.inputs.SafeJSONParser"],
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttles.PerUserThrottle",
        "accounts.throttles.PerIpAnonThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": env.str("THROTTLE_USER", default="600/min"),
        "anon": env.str("THROTTLE_ANON", default="120/min"),
        "register_ip": env.str("THROTTLE_REGISTER_IP", default="10/hour"),
        "register_username": env.str("THROTTLE_REGISTER_USERNAME", default="10/hour"),
        "login_ip": env.str("THROTTLE_LOGIN_IP", default="30/min"),
        "chat": env.str("THROTTLE_CHAT", default="20/min"),
        "player_search": env.str("THROTTLE_PLAYER_SEARCH", default="60/min"),
    },
    "EXCEPTION_HANDLER": "core.problems.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "accounts.schema.ScopedAutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Liar's Dice API",
    "DESCRIPTION": (
        "Turn-by-turn Liar's Dice for people and programs: accounts, chips, matches of "
        "six rule systems (the presets milton_bradley, wild_ones, roll_off, classic, "
        "perudo and poker_dice: `GET /api/v1/rulesets/`). Authenticate with "
        "`Authorization: Bearer <token>`. Every error is `application/problem+json` "
        "(RFC 9457) with a stable `code`."
    ),
    "VERSION": "1.0.0",
    # 3.1: JSON Schema 2020-12 shapes (`const` discriminators, `null` types) and `webhooks`.
    "OAS_VERSION": "3.1.0",
    # Choice sets that share the field name `status` get names of their own.
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": ["open", "active", "finished", "aborted"],
        "SeatStatusEnum": ["playing", "out", "left", "aborted"],
        "DeliveryStatusEnum": ["pending", "delivered", "failed"],
        "TimeoutPolicyEnum": ["auto", "challenge", "forfeit"],
        "PokerRankEnum": ["9", "10", "J", "Q", "K", "A"],
        "PokerHandRankEnum": ["9", "10", "J", "Q", "K", "A", "junk"],
        "ChallengeStatusEnum": ["pending", "accepted", "declined", "cancelled", "expired"],
        "SeekStatusEnum": ["waiting", "matched", "cancelled", "expired"],
        "PlayerReportReasonEnum": "moderation.models.PlayerReport.Reason",
        "TournamentStatusEnum": ["registering", "running", "finished", "cancelled"],
        # A bot's `strategy` wherever a match or a tournament seats one, and in GET /bots/.
        "StrategyEnum": "games.services.bot_players.STRATEGIES",
    },
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.add_problem_responses",
        "core.schema.add_rate_limit_headers",
        # The account events, the `webhooks` section and the streams' messages.
        "games.events.add_event_schemas",
        "accounts.schema.describe_scopes",
    ],
    "APPEND_COMPONENTS": {
        "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
    },
    "SECURITY": [{"bearerAuth": []}],
    "AUTHENTICATION_WHITELIST": [],
}

# The largest API request body; DRF reads the body itself, so Django's
# DATA_UPLOAD_MAX_MEMORY_SIZE (which still guards the admin's forms) does not apply.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)
# CSRF failures on API paths are problem+json; the admin keeps Django's page.
CSRF_FAILURE_VIEW = "core.problems.csrf_failure"

# Retry-After of the 503 answered while PostgreSQL or Redis is down.
OUTAGE_RETRY_AFTER_SECONDS = env.int("OUTAGE_RETRY_AFTER_SECONDS", default=5)

# Login back-off per (username, address): see accounts.throttles.LoginBackoffThrottle.
LOGIN_FREE_ATTEMPTS = env.int("LOGIN_FREE_ATTEMPTS", default=10)
LOGIN_BACKOFF_MAX_SECONDS = env.int("LOGIN_BACKOFF_MAX_SECONDS", default=900)
LOGIN_ATTEMPT_MEMORY_SECONDS = env.int("LOGIN_ATTEMPT_MEMORY_SECONDS", default=86400)

# Starting chips granted to every new account, minted from the issuer (never from the
# house's bankroll: docs/RULES.md 1.8).
SIGNUP_CHIPS = env.int("SIGNUP_CHIPS", default=1000)
# The most the house stakes on one bot's seat (a table's buy-in, or an entry's), so one
# table cannot take the whole bankroll: ten times the starting chips.
HOUSE_BOT_MAX_STAKE = env.int("HOUSE_BOT_MAX_STAKE", default=10_000)

# Ratings that cannot be farmed (docs/API.md, "Ratings that cannot be farmed"). A player
# is established in a scope (overall, or one preset) from this many rated matches in it;
# before that, provisional: a result against them moves an opponent's rating in
# proportion (games / this), a fresh account's not at all.
RATING_ESTABLISHED_GAMES = env.int("RATING_ESTABLISHED_GAMES", default=10)
# A match ended by a forfeit (resign, leaving, the timeout policy, a claimed win, a ban)
# before this many rounds ended with a result is unrated (`unrated_reason: abandoned`).
RATED_MIN_ROUNDS = env.int("RATED_MIN_ROUNDS", default=3)
# The leaderboard by rating lists a player once they have this many rated matches in the
# scope, against at least this many distinct opponents who were established then.
LEADERBOARD_MIN_GAMES = env.int("LEADERBOARD_MIN_GAMES", default=10)
LEADERBOARD_MIN_OPPONENTS = env.int("LEADERBOARD_MIN_OPPONENTS", default=5)

# Production hardening: `manage.py check --deploy` is clean with DEBUG=0 and a real key.
# Trust X-Forwarded-Proto only behind a proxy that sets it (and strips a client's own).
if env.bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "core.logging.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.request": {"level": "ERROR"},
        "django.server": {"level": "WARNING"},
    },
}
# Live events (long polls and event streams).
# Open event streams one user may hold in one web process; more get a 429.
STREAMS_PER_USER = env.int("STREAMS_PER_USER", default=20)
# Worker threads per web process for the live views' database work (config/asgi.py).
LIVE_DB_THREADS = env.int("LIVE_DB_THREADS", default=8)
# The token check of the live views (core.live), which clients renew every few seconds:
# one that remembers, per process, what the database said (revocations still count at once).
LIVE_AUTHENTICATION_CLASSES = ["accounts.authentication.RememberedBearerTokenAuthentication"]
STREAM_HEARTBEAT_SECONDS = env.float("STREAM_HEARTBEAT_SECONDS", default=15.0)
# Account events (the account stream) are kept at least this long.
ACCOUNT_EVENTS_KEEP_HOURS = env.int("ACCOUNT_EVENTS_KEEP_HOURS", default=24)
BOT_THINK_SECONDS = env.float("BOT_THINK_SECONDS", default=0.5)
# A bot's turn is due this long after it starts; if its task was lost, the sweep plays it.
BOT_TURN_DEADLINE_SECONDS = env.int("BOT_TURN_DEADLINE_SECONDS", default=20)
# How long a challenge waits for its answers, and a quick-play seek for its table.
CHALLENGE_TTL_SECONDS = env.int("CHALLENGE_TTL_SECONDS", default=15 * 60)
SEEK_TTL_SECONDS = env.int("SEEK_TTL_SECONDS", default=10 * 60)
# How long a finished match's rematch offer waits for the others' acceptance.
REMATCH_TTL_SECONDS = env.int("REMATCH_TTL_SECONDS", default=5 * 60)
# Turn-timeout tasks are scheduled only this far ahead (below the visibility timeout).
# Later deadlines are the sweep's (at most SWEEP_SECONDS late, p99 1 s in
# bench/timeouts.py): most turns end long before their deadline, and a task per move
# would cost every move a broker publish and a worker an ETA message to hold.
TIMEOUT_TASK_MAX_ETA_SECONDS = min(
    env.int("TIMEOUT_TASK_MAX_ETA_SECONDS", default=30),
    CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] - 60,
)
# A sweep silent for longer than this means an outage; turns whose deadlines fell in it
# get back the time they had left, and at least the grace (games.services.turns).
OUTAGE_GAP_SECONDS = env.int("OUTAGE_GAP_SECONDS", default=30)
OUTAGE_GRACE_SECONDS = env.int("OUTAGE_GRACE_SECONDS", default=30)
CELERY_BEAT_SCHEDULE = {
    "sweep-due-turns": {
        "task": "games.tasks.sweep_due_turns",
        "schedule": env.float("SWEEP_SECONDS", default=2.0),
        "options": {"expires": 10},
    },
    "tournaments": {
        "task": "tournaments.tasks.sweep",
        "schedule": env.float("TOURNAMENT_SWEEP_SECONDS", default=5.0),
        "options": {"expires": 10},
    },
    "purge-account-events": {
        "task": "accounts.tasks.purge_account_events",
        "schedule": 3600.0,
        "options": {"expires": 600},
    },
    "expire-challenges-and-seeks": {
        "task": "games.tasks.expire_challenges_and_seeks",
        "schedule": 30.0,
        "options": {"expires": 60},
    },
    "resend-stuck-webhook-deliveries": {
        "task": "accounts.tasks.resend_stuck_webhook_deliveries",
        "schedule": 60.0,
        "options": {"expires": 60},
    },
    "purge-idempotency-records": {
        "task": "core.tasks.purge_idempotency_records",
        "schedule": 3600.0,
        "options": {"expires": 600},
    },
}
# Webhook deliveries to private, loopback or link-local addresses (tests allow them).
WEBHOOKS_ALLOW_PRIVATE = env.bool("WEBHOOKS_ALLOW_PRIVATE", default=False)
# A delivery attempt: connecting may take WEBHOOK_CONNECT_SECONDS, each read of the answer
# WEBHOOK_TIMEOUT_SECONDS, and the whole exchange WEBHOOK_DEADLINE_SECONDS, so a receiver
# that answers a byte at a time holds a worker no longer than that.
WEBHOOK_CONNECT_SECONDS = env.float("WEBHOOK_CONNECT_SECONDS", default=3.0)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
WEBHOOK_DEADLINE_SECONDS = env.float("WEBHOOK_DEADLINE_SECONDS", default=10.0)
# A pending delivery whose next attempt is this overdue, with none under way, lost its task
# (a worker killed mid-delivery, the broker down when it was made): the sweep resends it.
WEBHOOK_STUCK_SECONDS = env.int("WEBHOOK_STUCK_SECONDS", default=120)
# Keys that encrypt webhook secrets at rest (accounts.secret_box): the first seals, all
# open. To rotate, put a new key first, run `manage.py rotate_webhook_secrets`, then drop
# the old one. Without the setting, a key derived from SECRET_KEY.
WEBHOOK_SECRET_KEYS = env.list("WEBHOOK_SECRET_KEYS", default=[]) or [SECRET_KEY]
