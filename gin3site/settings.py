"""Settings for gin3, all from the environment with defaults that run on one machine.

With nothing set, gin3 uses a SQLite file and an embedded Celery broker under
``var/``; ``DATABASE_URL`` and ``REDIS_URL`` switch to PostgreSQL and Redis.
"""

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

import dj_database_url
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("GIN3_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def local_secret_key() -> str:
    """A key made once for this machine, so a local run never uses a known secret.

    Processes started at once (``make run``'s children, two test runs) may each find
    no key: each writes one to a file of its own and links it into place, which only
    the first can do, so every process reads the same whole key."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        with tempfile.NamedTemporaryFile("w", dir=VAR_DIR, prefix=".secret_key-") as made:
            made.write(secrets.token_urlsafe(50))
            made.flush()
            os.chmod(made.name, 0o600)
            with contextlib.suppress(FileExistsError):
                os.link(made.name, path)
    return path.read_text().strip()


DEBUG = env_bool("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY") or local_secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY") else None
# HTTPS whenever DEBUG is off (docs/deploy.md): plain HTTP is redirected, the session and
# CSRF cookies are sent over HTTPS only, and browsers are told to keep to HTTPS (HSTS) for
# a year. A run on one machine over plain HTTP (make run, the tests) sets GIN3_PLAIN_HTTP=1,
# which turns them all off; each can also be set on its own.
HTTPS_ONLY = not DEBUG and not env_bool("GIN3_PLAIN_HTTP")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS_ONLY)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", HTTPS_ONLY)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", HTTPS_ONLY)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS") or (365 * 86400 if HTTPS_ONLY else 0))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS_ONLY)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", HTTPS_ONLY)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "games",
    "bot",
    "csp",
]

MIDDLEWARE = [
    "gin3site.health.HealthMiddleware",  # first: /healthz answers whatever the host or scheme
    "gin3site.access.AccessLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

# Content-Security-Policy (django-csp): every page's scripts and styles come from our
# own static files, none inline, and it talks to the site alone (the live table polls
# its JSON). GIN3_CSP_SCRIPT_SOURCES is where scripts may come from: a page that needs
# another script's origin (Telegram's Mini App script) adds it there. The favicon is a
# data: URL.
GIN3_CSP_SCRIPT_SOURCES = ["'self'"]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": GIN3_CSP_SCRIPT_SOURCES,
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

ROOT_URLCONF = "gin3site.urls"

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

WSGI_APPLICATION = "gin3site.wsgi.application"
ASGI_APPLICATION = "gin3site.asgi.application"

# The web server (``manage.py web``, which ``manage.py serve`` runs; docs/deploy.md):
# waitress over WSGI, GIN3_WEB_WORKERS processes of GIN3_WEB_THREADS threads.
GIN3_WEB_WORKERS = int(os.environ.get("GIN3_WEB_WORKERS") or max(os.cpu_count() or 1, 2))
GIN3_WEB_THREADS = int(os.environ.get("GIN3_WEB_THREADS") or 4)

# Database connections (docs/deploy.md, "Connections"). The site is served by
# waitress's threads over WSGI (``manage.py web``): there a thread
# serves one request at a time and, with DB_CONN_MAX_AGE above 0 (60 is
# advised on PostgreSQL), keeps its connection that many seconds: the
# connections of a web process are at most its threads, and a move skips the
# connection set-up (a new PostgreSQL backend process each time). Under
# ASGI, Django runs each request's sync code in a thread of its own, and a kept
# connection would stay with a thread that never serves again (at 40 requests/s
# PostgreSQL runs out of connections and moves are lost). So
# gin3site/asgi.py sets GIN3_ASGI, and then connections come from psycopg's
# pool, at most DB_POOL_MAX a process, and DB_CONN_MAX_AGE does not apply.
# Health checks test a kept connection before a request uses it, so one the
# database dropped (a restart, an outage) is replaced instead of failing a move.
UNDER_ASGI = env_bool("GIN3_ASGI")
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'gin3.sqlite3'}",
        conn_max_age=0 if UNDER_ASGI else int(os.environ.get("DB_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
if UNDER_ASGI and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["OPTIONS"] = {
        "pool": {"min_size": 1, "max_size": int(os.environ.get("DB_POOL_MAX", "8")), "timeout": 10}
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, worker, bot) share the file: wait for locks
    # instead of failing, and take the write lock at BEGIN so that a
    # transaction never has to upgrade its lock halfway.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    # Tests run a Celery worker in another thread or process: they need a real
    # file (Django's shared in-memory database fails on a lock instead of
    # waiting), one per test run so that runs side by side don't meet.
    DATABASES["default"]["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"gin3-test-{os.getpid()}.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("mk", "Македонски"),
    ("he", "עברית"),
    ("lt", "Lietuvių"),
    ("mr", "मराठी"),
    ("ms", "Bahasa Melayu"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request until collectstatic has run

# Logs: plain lines, or one JSON object a line with LOG_FORMAT=json (gin3site/logs.py);
# every request has a line (gin3site/access.py). Errors go to Sentry too when
# SENTRY_DSN is set, scrubbed of cards, texts and phone numbers (gin3site/errors.py).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "gin3site.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain"}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # The clock scan runs every few seconds: a line for each task received and done
    # would bury what matters in the log. Failures are still logged, as warnings.
    "loggers": {name: {"level": "WARNING"} for name in ("celery.app.trace", "celery.worker.strategy")},
}

SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    from gin3site.errors import start_sentry

    start_sentry(SENTRY_DSN, os.environ.get("SENTRY_ENVIRONMENT", ""), os.environ.get("SENTRY_RELEASE", ""))

# Metrics at /metrics (games/metrics.py), for whoever sends this bearer token; 404 without it.
GIN3_METRICS_TOKEN = os.environ.get("GIN3_METRICS_TOKEN", "")

# Celery (games/tasks.py): turn clocks, reminders, computer moves, delivery and
# the sweep. Redis when REDIS_URL is set. Without it, Kombu's filesystem
# transport under var/broker: it ships with Kombu, needs no server and works
# across the processes of one machine (gin3site/broker.py fixes its one race).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A task taken but not acknowledged goes back to the queue after this long:
    # the longest countdown we ever give a task (a delivery retry, at most about
    # 20 minutes: games.services.plumbing.delivery) stays below it, or Redis would hand the
    # waiting task to a second worker. Turn clocks wait in the database, not here.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
else:
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT = "gin3site.broker:Transport"
    BROKER_DIR = VAR_DIR / "broker"
    BROKER_DIR.mkdir(exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(VAR_DIR / "broker-control"),
        "polling_interval": 0.5,
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Every task may run twice or late (games/tasks.py): so acknowledge only when
# done, give a task back when its worker dies, and take one task at a time.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True  # the database is the record; no result backend
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULER = "games.heartbeat:Scheduler"  # beat's heartbeat, for its health check
# Four queues, each with workers of its own (``-Q``; docs/deploy.md, "Queues"), so that
# a backlog on one never makes another late: the clock scan and the sweep on "clock",
# delivery on "delivery", computer moves on "computer", and the review of a finished
# hand, seconds of search, on "review". A worker started without ``-Q`` (the tests'
# workers) consumes them all.
GIN3_QUEUES = ("clock", "delivery", "computer", "review")
CELERY_TASK_QUEUES = [Queue(name) for name in GIN3_QUEUES]
CELERY_TASK_DEFAULT_QUEUE = "delivery"
CELERY_TASK_ROUTES = {
    "games.tasks.scan_clocks": {"queue": "clock"},
    "games.tasks.sweep": {"queue": "clock"},
    "games.tasks.play_computer_move": {"queue": "computer"},
    "games.tasks.review_hand": {"queue": "review"},
}
# Each worker's processes: each holds a database connection (docs/deploy.md,
# "Connections"), so a fixed number rather than Celery's default of one per core.
CELERY_WORKER_CONCURRENCY = int(os.environ.get("GIN3_WORKER_CONCURRENCY") or 2)
# Logs go through LOGGING below (LOG_FORMAT), in the worker as in the site.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Beat's two clocks: the scan that acts on due deadlines and reminders (every
# deadline is acted on within a few seconds of its time), and the sweep that
# delivers messages whose task was lost. A run that waited past the next one is
# dropped: the next one does its work.
GIN3_CLOCK_SECONDS = float(os.environ.get("GIN3_CLOCK_SECONDS", "2"))
GIN3_SWEEP_SECONDS = float(os.environ.get("GIN3_SWEEP_SECONDS", "30"))
CELERY_BEAT_SCHEDULE = {
    "scan-clocks": {
        "task": "games.tasks.scan_clocks",
        "schedule": GIN3_CLOCK_SECONDS,
        "options": {"expires": GIN3_CLOCK_SECONDS},
    },
    "sweep": {
        "task": "games.tasks.sweep",
        "schedule": GIN3_SWEEP_SECONDS,
        "options": {"expires": GIN3_SWEEP_SECONDS},
    },
}

# Delivery (games/services/plumbing/delivery.py): the backend class for each channel, like Django's
# EMAIL_BACKEND. The console backend logs what would be sent, for a local run.
CONSOLE_BACKEND = "bot.backends.console.ConsoleBackend"
GIN3_BACKENDS = {
    "telegram": os.environ.get("GIN3_TELEGRAM_BACKEND")
    or ("bot.backends.telegram.TelegramBackend" if os.environ.get("TELEGRAM_BOT_TOKEN") else CONSOLE_BACKEND),
    "sms": os.environ.get("GIN3_SMS_BACKEND") or CONSOLE_BACKEND,
    "terminal": "bot.terminal.backend.TerminalBackend",
}

# "celery" sends background work to the worker; "off" leaves it to the caller
# (the terminal channel drives computer players itself) and to the sweep.
GIN3_BACKGROUND = os.environ.get("GIN3_BACKGROUND", "celery")
GIN3_SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
# A player's commands per minute before they are refused (games.services.commands):
# a quick player types or presses one a second at most; a flood of team messages
# must not bury a turn notice.
GIN3_COMMANDS_PER_MINUTE = int(os.environ.get("GIN3_COMMANDS_PER_MINUTE", "60"))
# The lobby (games/services/write/matchmaking.py): an open match that has waited this long
# for players is offered a computer player; any match that has waited GIN3_LOBBY_DAYS
# is closed. A rematch offer lapses GIN3_REMATCH_HOURS after the first "again"
# (games/services/write/rematch.py). Time off a player may take a year with "away"
# (games/services/write/timeoff.py).
GIN3_LOBBY_BOT_OFFER_HOURS = float(os.environ.get("GIN3_LOBBY_BOT_OFFER_HOURS", "48"))
GIN3_LOBBY_DAYS = float(os.environ.get("GIN3_LOBBY_DAYS", "7"))
GIN3_REMATCH_HOURS = float(os.environ.get("GIN3_REMATCH_HOURS", "24"))
GIN3_AWAY_DAYS_PER_YEAR = float(os.environ.get("GIN3_AWAY_DAYS_PER_YEAR", "14"))
# The seconds the hard level's search spends on a move (games/engine/search.py; empty:
# the engine's default, which keeps a move under 0.3 s at the median).
GIN3_HARD_SECONDS = float(os.environ["GIN3_HARD_SECONDS"]) if os.environ.get("GIN3_HARD_SECONDS") else None
# Computer partners (games/services/write/advice.py): a computer captain waits this long for
# the suggestion of a person who sits out and advises (0: it never waits).
GIN3_ADVICE_WAIT_SECONDS = float(os.environ.get("GIN3_ADVICE_WAIT_SECONDS", "30"))
# A finished hand's review (games/services/write/review.py) searches the moves of its people
# for at most this long in all, on the review queue's worker.
GIN3_REVIEW_SECONDS = float(os.environ.get("GIN3_REVIEW_SECONDS", "30"))

# Telegram: the bot's token from @BotFather; a self-hosted Bot API server (or a
# test fake) instead of api.telegram.org; the secret Telegram sends back with
# every webhook call; the bot's @username for invite links (else asked by getMe).
TELEGRAM_BOT_TOKEN = os.environ.get("TELEGRAM_BOT_TOKEN", "")
TELEGRAM_API_URL = os.environ.get("TELEGRAM_API_URL", "https://api.telegram.org").rstrip("/")
TELEGRAM_WEBHOOK_SECRET = os.environ.get("TELEGRAM_WEBHOOK_SECRET", "")
TELEGRAM_BOT_USERNAME = os.environ.get("TELEGRAM_BOT_USERNAME", "").lstrip("@")
# The table page as a Telegram Mini App (bot/web): each table message gets an "Open
# table" button. Telegram opens only HTTPS addresses, so it is on by default when
# SITE_URL is one. The page proves who it is with Telegram's signed initData, which
# is refused once older than TELEGRAM_INIT_DATA_MAX_AGE seconds (reopening the
# table signs it anew). The page looks for news every GIN3_TABLE_POLL_SECONDS.
TELEGRAM_MINI_APP = env_bool("TELEGRAM_MINI_APP", GIN3_SITE_URL.startswith("https://"))
TELEGRAM_INIT_DATA_MAX_AGE = int(os.environ.get("TELEGRAM_INIT_DATA_MAX_AGE", "86400"))
GIN3_TABLE_POLL_SECONDS = float(os.environ.get("GIN3_TABLE_POLL_SECONDS", "2"))

# SMS (Twilio) -----------------------------------------------------------------
# docs/sms.md: the account's SID and auth token, and the sender: a Twilio
# number (+15550001111) or a Messaging Service (MG...). With them SMS goes out
# through Twilio; without them SMS is off: SMS messages go to the console
# backend, the inbound webhook answers 503 and ``phone`` is refused.
# SMS_PUBLIC_URL is the webhook's address as Twilio calls it, which Twilio's
# signature covers; behind a proxy it differs from what Django sees.
TWILIO_ACCOUNT_SID = os.environ.get("TWILIO_ACCOUNT_SID", "")
TWILIO_AUTH_TOKEN = os.environ.get("TWILIO_AUTH_TOKEN", "")
TWILIO_FROM_NUMBER = os.environ.get("TWILIO_FROM_NUMBER", "")
TWILIO_MESSAGING_SERVICE_SID = os.environ.get("TWILIO_MESSAGING_SERVICE_SID", "")
SMS_ENABLED = bool(TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN and (TWILIO_FROM_NUMBER or TWILIO_MESSAGING_SERVICE_SID))
SMS_PUBLIC_URL = os.environ.get("SMS_PUBLIC_URL") or GIN3_SITE_URL.rstrip("/") + "/sms/inbound/"
# Where Twilio reports what became of a text we sent (bot/sms_status.py); its signature
# covers this address as Twilio calls it.
SMS_STATUS_URL = os.environ.get("SMS_STATUS_URL") or GIN3_SITE_URL.rstrip("/") + "/sms/status/"
if SMS_ENABLED and not os.environ.get("GIN3_SMS_BACKEND"):
    GIN3_BACKENDS["sms"] = "bot.backends.sms.TwilioBackend"
# The twilio library logs every request and its headers at INFO.
LOGGING["loggers"]["twilio.http_client"] = {"level": "WARNING"}
