"""Xorventa settings: one module, driven by environment variables (see .env.example and README).

Every value is read through the typed helpers in ``xorventa.env``, which refuse bad values with a
message naming the variable.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

from apps.tenants.deployment import require_extra, s3_storage_options
from xorventa.env import env_bool, env_float, env_int, env_list, env_path, env_secret, env_str, load_dotenv

BASE_DIR = Path(__file__).resolve().parent.parent
load_dotenv(BASE_DIR / ".env")

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_secret("SECRET_KEY", debug=DEBUG, debug_default="dev-only-insecure-secret-key-change-me")

# Seed the demo logins (published passwords) with DEBUG off too: lab/demo.py.
XORVENTA_DEMO = env_bool("XORVENTA_DEMO", False)
# The development-only app `lab` (benchmarks, evaluation, security suite, scenarios, demo, screenshots):
# installed in development, with the demo, and in the tests; a deployment leaves it out (decision 0018).
XORVENTA_LAB = env_bool("XORVENTA_LAB", DEBUG or XORVENTA_DEMO)

# Where the embedded database, uploads and other local state live.
DATA_DIR = env_path("XORVENTA_DATA_DIR", BASE_DIR / ".xorventa")

# The host that serves the public site (landing page, reseller console, API). Businesses are served
# on <slug>.<BASE_DOMAIN> and, without any DNS, on /t/<slug>/ under the public host.
BASE_DOMAIN = env_str("XORVENTA_BASE_DOMAIN", "localhost").lower()
PUBLIC_HOSTS = [
    h.lower() for h in env_list("XORVENTA_PUBLIC_HOSTS", [BASE_DOMAIN, "127.0.0.1", "testserver"])
]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [f".{BASE_DOMAIN}", *PUBLIC_HOSTS] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off (e.g. '.example.com').")
SITE_URL = env_str("XORVENTA_SITE_URL", f"http://{BASE_DOMAIN}:8000").rstrip("/")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

SHARED_APPS = [
    "django_tenants",
    "apps.tenants",  # first: its first migration creates the vector extension in public
    "apps.accounts",
    "daphne",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "axes",  # shared: its attempts and lockouts live in the public schema, one per account site-wide
    "rest_framework",
    "rest_framework.authtoken",
    "rest_framework_api_key",  # the REST API's keys (apps.accounts.models.ApiKey builds on its model)
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc as static files: the API docs work offline
    "channels",
    "django_q",
    "django_htmx",
    "apps.portal",
    *(["lab"] if XORVENTA_LAB else []),  # above every product app; no product app imports it
]
TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.admin",
    "apps.facts",
    "apps.retrieval",
    "apps.gaps",
    "apps.chat",
    "apps.feedback",  # answer feedback (thumbs up/down), above chat and gaps
    "apps.visitors",  # visitor data rights: export, erase, retention, consent
    "apps.webhooks",  # signed webhooks: listens to every layer below, imported by none
]
INSTALLED_APPS = list(SHARED_APPS) + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenants.Business"
TENANT_DOMAIN_MODEL = "tenants.Domain"
PUBLIC_SCHEMA_URLCONF = "xorventa.urls_public"
ROOT_URLCONF = "xorventa.urls"
TENANT_SUBFOLDER_PREFIX = "t"  # path routing: /t/<slug>/...
AUTH_USER_MODEL = "accounts.User"

MIDDLEWARE = [
    # Outermost, so that the tenant router's own 404s carry the framing headers too (issue 16).
    "apps.tenants.security.SecurityHeadersMiddleware",
    "apps.tenants.middleware.TenantRoutingMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into the lockout page (AXES_LOCKOUT_TEMPLATE).
    "axes.middleware.AxesMiddleware",
]

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
                "apps.tenants.context_processors.tenant",
            ],
        },
    },
]

WSGI_APPLICATION = "xorventa.wsgi.application"
ASGI_APPLICATION = "xorventa.asgi.application"


def _database_from_url(url: str) -> dict[str, object]:
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(f"DATABASE_URL must be a postgresql:// URL, not {parsed.scheme!r}.")
    query = parse_qs(parsed.query)
    return {
        "NAME": unquote(parsed.path.lstrip("/")) or "xorventa",
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": unquote(parsed.hostname or query.get("host", [""])[0]),
        "PORT": str(parsed.port or ""),
        "OPTIONS": {k: v[0] for k, v in query.items() if k != "host"},
    }


DATABASE_URL = env_str("DATABASE_URL")
_db: dict[str, object] = {
    "ENGINE": "apps.tenants.db_backend",
    "CONN_MAX_AGE": env_int("XORVENTA_CONN_MAX_AGE", 0, minimum=0),
    "ATOMIC_REQUESTS": False,
    "TEST": {"NAME": "test_xorventa"},
}
if DATABASE_URL:
    _db.update(_database_from_url(DATABASE_URL))
else:
    # The embedded server (pgserver) starts on first connection: see apps/tenants/db_backend.
    _db.update(
        {
            "NAME": "xorventa",
            "USER": "postgres",
            "PASSWORD": "",
            "HOST": "",
            "PORT": "",
            "EMBEDDED_DATA_DIR": str(DATA_DIR / "pgdata"),
        }
    )
DATABASES = {"default": _db}
DATABASE_ROUTERS = ("django_tenants.routers.TenantSyncRouter",)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Sign-in throttling: django-axes. Its backend comes first and refuses a locked-out attempt before any
# password is checked; ModelBackend then signs in as before.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
# Locked by account OR by address, each on its own count: the account alone stops guessing one
# password from many addresses (a botnet), the address alone stops one address spraying many accounts.
# The price of the account lock is that anyone can lock an account for the cool-off time (never open
# it); staff unlock it early with `axes_reset_username` / the admin's access attempts (docs/security.md).
AXES_LOCKOUT_PARAMETERS = [["username"], ["ip_address"]]
AXES_USERNAME_FORM_FIELD = "username"  # the sign-in forms' field (the model's is "email")
AXES_USERNAME_CALLABLE = "apps.accounts.lockout.axes_username"
AXES_RESET_ON_SUCCESS = True  # a successful sign-in clears that account's and address's failures
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
# The client address is REMOTE_ADDR, as for the widget's limits (a proxy must set it, e.g. daphne's
# --proxy-headers), never a header a client can write.
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "accounts:login"
# Password reset links (Django's signed tokens, single use) expire after an hour, not Django's 3 days.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3600, minimum=300)
# Account links (invitation, password reset request and link) one address may open per 15 minutes.
XORVENTA_RATE_ACCOUNT_LINKS_PER_15MIN = env_int("XORVENTA_RATE_ACCOUNT_LINKS_PER_15MIN", 30, minimum=1)
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
MEDIA_ROOT = env_path("XORVENTA_MEDIA_ROOT", DATA_DIR / "media")
# The shared evaluation data (attack corpora, DSTC sets, scenarios): read by the suites and benchmarks,
# never copied into the repository; by default the shared/ folder beside the checkout.
XORVENTA_EVAL_DIR = env_path("XORVENTA_EVAL_DIR", (BASE_DIR / ".." / "shared" / "eval").resolve())
MEDIA_URL = "/media/"
# Uploads (and the files a backup carries) go through Django's storage API only: the local disk by
# default, S3 or an S3-compatible server (MinIO, Ceph, R2...) with XORVENTA_STORAGE=s3 and the
# `xorventa[s3]` extra, so a worker on another machine reads what a web process stored.
XORVENTA_STORAGE = env_str("XORVENTA_STORAGE", "local").strip().lower()
if XORVENTA_STORAGE == "s3":
    _default_storage: dict[str, object] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": s3_storage_options(),
    }
elif XORVENTA_STORAGE in ("", "local"):
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
else:
    raise ImproperlyConfigured(f"XORVENTA_STORAGE must be 'local' or 's3', not {XORVENTA_STORAGE!r}.")
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Caches: the default cache is per tenant (django-tenants' key function); the "global" alias has no
# tenant prefix and holds counters that must be shared across tenants (per-IP rate limits). In-process
# memory for one server process; Redis when REDIS_URL is set (several processes, docs/scaling.md).
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    require_extra("redis", ("redis", "channels_redis"), "REDIS_URL is set")
_cache_backend = (
    {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
)
CACHES = {
    "default": {
        **_cache_backend,
        "LOCATION": REDIS_URL or "xorventa-tenant",
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
    },
    "global": {**_cache_backend, "LOCATION": REDIS_URL or "xorventa-global", "KEY_PREFIX": "global"},
}

# Channels: in-memory layer for one process; channels-redis for several (docs/scaling.md). Its receive
# blocks 5 s in BZPOPMIN, and redis-py 8 times a read out after 5 s by default: on a busy machine the
# reply came a moment late and the visitor's socket closed with 1011 (the multi-process test), so the
# read may take longer; a dead Redis is still noticed.
_CHANNEL_HOST = {"address": REDIS_URL, "socket_timeout": 30}
CHANNEL_LAYERS = (
    {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [_CHANNEL_HOST]}}}
    if REDIS_URL
    else {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
)

# django-q2 on the ORM broker (PostgreSQL): no extra service to run; on Redis when REDIS_URL is set,
# through a broker that keeps a task leased until it is acknowledged (django-q2's own Redis broker
# loses the task of a worker that dies: xorventa/task_broker.py). A task not acknowledged `retry`
# seconds after it was handed out goes to another worker; `timeout` (which stops a task running too
# long) stays below it, so a slow task is never run twice at once.
_TASK_TIMEOUT = env_int("XORVENTA_TASK_TIMEOUT", 1800, minimum=10)
Q_CLUSTER = {
    "name": "xorventa",
    **(
        {"redis": REDIS_URL, "broker_class": "xorventa.task_broker.ReliableRedis"}
        if REDIS_URL
        else {"orm": "default"}
    ),
    "workers": env_int("XORVENTA_WORKERS", 2, minimum=1),
    "timeout": _TASK_TIMEOUT,
    "retry": env_int("XORVENTA_TASK_RETRY", _TASK_TIMEOUT + 60, minimum=_TASK_TIMEOUT + 1),
    "max_attempts": 3,
    "catch_up": False,
    "poll": 0.5,
    "sync": env_bool("XORVENTA_TASKS_SYNC", False),
    "ack_failures": True,
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "rest_framework.views.exception_handler",
    # JSON with a nesting limit: 1,000 nested brackets were a 500 (RecursionError), now a 400.
    "DEFAULT_PARSER_CLASSES": [
        "apps.tenants.json_input.LimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Xorventa API",
    "DESCRIPTION": "Knowledge, chat and gaps for small businesses' assistants.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs pages load their scripts and styles from this server (the sidecar package), not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge: Swagger UI would send the schema's URL to validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 999_999_999_999_999_999},  # apps/api/converters.py
        "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},  # Django's slug converter
    },
    # The v1 API's error bodies come from drf-standardized-errors (apps/api/base.py): its enum hook
    # keeps the error components apart, and the overrides name the enums it shares.
    "POSTPROCESSING_HOOKS": ["drf_standardized_errors.openapi_hooks.postprocess_schema_enums"],
    "ENUM_NAME_OVERRIDES": {
        "ValidationErrorEnum": "drf_standardized_errors.openapi_serializers.ValidationErrorEnum.choices",
        "ClientErrorEnum": "drf_standardized_errors.openapi_serializers.ClientErrorEnum.choices",
        "ServerErrorEnum": "drf_standardized_errors.openapi_serializers.ServerErrorEnum.choices",
        "ErrorCode401Enum": "drf_standardized_errors.openapi_serializers.ErrorCode401Enum.choices",
        "ErrorCode403Enum": "drf_standardized_errors.openapi_serializers.ErrorCode403Enum.choices",
        "ErrorCode404Enum": "drf_standardized_errors.openapi_serializers.ErrorCode404Enum.choices",
        "ErrorCode405Enum": "drf_standardized_errors.openapi_serializers.ErrorCode405Enum.choices",
        "ErrorCode406Enum": "drf_standardized_errors.openapi_serializers.ErrorCode406Enum.choices",
        "ErrorCode415Enum": "drf_standardized_errors.openapi_serializers.ErrorCode415Enum.choices",
        "ErrorCode429Enum": "drf_standardized_errors.openapi_serializers.ErrorCode429Enum.choices",
        "ErrorCode500Enum": "drf_standardized_errors.openapi_serializers.ErrorCode500Enum.choices",
        # Choice sets of the v1 API that share a field name ("status", "kind").
        "FactStatusEnum": "apps.facts.models.FactStatus",
        "DisagreementStatusEnum": "apps.facts.models.DisagreementStatus",
        "JobStatusEnum": "apps.facts.models.JobStatus",
        "JobKindEnum": "apps.facts.models.JobKind",
        "SourceKindEnum": "apps.facts.models.SourceKind",
        "EventKindEnum": "apps.facts.models.EventKind",
        "QuestionStatusEnum": "apps.gaps.models.GapStatus",
        "MemberRoleEnum": "apps.accounts.models.Role",
        "InviteRoleEnum": "apps.api.reseller.INVITE_ROLES",
    },
}
# Requests per minute per API key (apps/api/base.py), counted across every business the key reaches.
XORVENTA_API_KEY_RATE = env_int("XORVENTA_API_KEY_RATE", 600)
# Days the per-request log of API keys is kept (a nightly job prunes it); usage figures read 30.
XORVENTA_API_KEY_LOG_DAYS = env_int("XORVENTA_API_KEY_LOG_DAYS", 90, minimum=30)

EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Xorventa <noreply@localhost>")

# Security: production defaults, relaxed only by DEBUG.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# A container's health probe asks over plain HTTP from inside (Dockerfile HEALTHCHECK): not redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", False) else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No page is meant to be framed (the widget is a script, not an iframe): apps/tenants/security.py.
XORVENTA_CONTENT_SECURITY_POLICY = env_str(
    "XORVENTA_CONTENT_SECURITY_POLICY", "frame-ancestors 'none'; base-uri 'self'; object-src 'none'"
)
SILENCED_SYSTEM_CHECKS: list[str] = []

# Knowledge, retrieval and language model.
XORVENTA_EXTRACTOR = env_str("XORVENTA_EXTRACTOR", "auto")  # auto | builtin | llm
XORVENTA_LLM_BASE_URL = env_str("XORVENTA_LLM_BASE_URL") or None
XORVENTA_LLM_API_KEY = env_str("XORVENTA_LLM_API_KEY") or None
XORVENTA_LLM_MODEL = env_str("XORVENTA_LLM_MODEL") or None
# A CPU-only self-hoster's server: one extraction call took 50-150 s on a loaded 2-core machine, so
# the whole-call limit is generous; an answer that has not started after the first-token limit is
# given by the built-in answerer instead. JSON mode: auto, json_schema, json_object_schema,
# json_object or tools (apps/integrations/llm.py).
XORVENTA_LLM_TIMEOUT = env_float("XORVENTA_LLM_TIMEOUT", 180.0)
XORVENTA_LLM_FIRST_TOKEN_TIMEOUT = env_float("XORVENTA_LLM_FIRST_TOKEN_TIMEOUT", 20.0)
XORVENTA_LLM_JSON_MODE = env_str("XORVENTA_LLM_JSON_MODE", "auto").strip().lower() or "auto"
if XORVENTA_LLM_JSON_MODE not in ("auto", "json_schema", "json_object_schema", "json_object", "tools"):
    raise ImproperlyConfigured(
        "XORVENTA_LLM_JSON_MODE must be auto, json_schema, json_object_schema, json_object or tools, "
        f"not {XORVENTA_LLM_JSON_MODE!r}."
    )
# New businesses' schemas are copied from a migrated template instead of migrated (decision 0008).
XORVENTA_TENANT_TEMPLATE = env_bool("XORVENTA_TENANT_TEMPLATE", True)
XORVENTA_EMBEDDING_MODEL = env_str("XORVENTA_EMBEDDING_MODEL", "builtin:all-MiniLM-L6-v2")
XORVENTA_EMBEDDING_REVISION = env_str("XORVENTA_EMBEDDING_REVISION") or None
XORVENTA_EMBEDDING_QUERY_PREFIX = env_str("XORVENTA_EMBEDDING_QUERY_PREFIX")
XORVENTA_EMBEDDING_SHA256 = env_str("XORVENTA_EMBEDDING_SHA256") or None
XORVENTA_TORCH_THREADS = env_int("XORVENTA_TORCH_THREADS", 0, minimum=0) or None
# Visitor messages are embedded with the same weights exported to ONNX when possible (decision 0007).
XORVENTA_EMBEDDING_QUERY_RUNTIME = env_str("XORVENTA_EMBEDDING_QUERY_RUNTIME", "auto")  # auto|onnx|torch
XORVENTA_EMBEDDING_QUERY_THREADS = env_int("XORVENTA_EMBEDDING_QUERY_THREADS", 1, minimum=1)
# HNSW candidate list per vector query (pgvector default 40; 0 keeps the server default).
XORVENTA_QUESTION_KEY_WEIGHT = env_float("XORVENTA_QUESTION_KEY_WEIGHT", 0.5)
XORVENTA_HNSW_EF_SEARCH = env_int("XORVENTA_HNSW_EF_SEARCH", 100, minimum=0)
XORVENTA_MAX_SOURCE_CHARS = env_int("XORVENTA_MAX_SOURCE_CHARS", 1_000_000, minimum=1000)
# Uploads (issue 16): checked before parsing; the parser then runs in a child process under a memory
# and a time limit (apps/facts/sources/parse_child.py).
XORVENTA_MAX_UNZIPPED_BYTES = env_int("XORVENTA_MAX_UNZIPPED_BYTES", 50_000_000, minimum=1_000_000)
XORVENTA_MAX_ZIP_ENTRIES = env_int("XORVENTA_MAX_ZIP_ENTRIES", 1000, minimum=10)
XORVENTA_MAX_ZIP_RATIO = env_int("XORVENTA_MAX_ZIP_RATIO", 200, minimum=10)
XORVENTA_MAX_PDF_PAGES = env_int("XORVENTA_MAX_PDF_PAGES", 500, minimum=1)
XORVENTA_MAX_PDF_OBJECTS = env_int("XORVENTA_MAX_PDF_OBJECTS", 250_000, minimum=100)
XORVENTA_PARSER_MEMORY_MB = env_int("XORVENTA_PARSER_MEMORY_MB", 512, minimum=128)
XORVENTA_PARSER_TIMEOUT = env_int("XORVENTA_PARSER_TIMEOUT", 60, minimum=1)
XORVENTA_EMBEDDING_DIMENSIONS = env_int("XORVENTA_EMBEDDING_DIMENSIONS", 384, minimum=1)
XORVENTA_RERANKER_MODEL = env_str("XORVENTA_RERANKER_MODEL") or None
# Region (ISO 3166 code) of phone numbers written without a country code (apps/language/phones.py).
XORVENTA_PHONE_REGION = env_str("XORVENTA_PHONE_REGION", "US").upper()
XORVENTA_ANSWERER = env_str("XORVENTA_ANSWERER", "auto")  # auto | builtin | llm
XORVENTA_PROMPT_CANARY = env_str("XORVENTA_PROMPT_CANARY", "XV-CANARY-5e1d2c7a")
XORVENTA_MAX_MESSAGE_CHARS = env_int("XORVENTA_MAX_MESSAGE_CHARS", 1000, minimum=10)
XORVENTA_RATE_VISITOR_PER_MIN = env_int("XORVENTA_RATE_VISITOR_PER_MIN", 20, minimum=1)
XORVENTA_RATE_IP_PER_MIN = env_int("XORVENTA_RATE_IP_PER_MIN", 60, minimum=1)
XORVENTA_RATE_WIDGET_PER_MIN = env_int("XORVENTA_RATE_WIDGET_PER_MIN", 600, minimum=1)
# Requests to addresses a user supplied (the crawler; apps/outbound): public addresses on these ports
# only. Loopback (any port) only when explicitly allowed: the test suite's local sites; never on in
# production. `make run`'s demo crawl needs neither: it grants its own local server for its duration.
XORVENTA_OUTBOUND_ALLOW_LOOPBACK = env_bool("XORVENTA_OUTBOUND_ALLOW_LOOPBACK", False)
_outbound_ports = env_list("XORVENTA_OUTBOUND_ALLOWED_PORTS", ["80", "443"])
if not all(port.isdigit() and 0 < int(port) < 65536 for port in _outbound_ports):
    raise ImproperlyConfigured(
        f"XORVENTA_OUTBOUND_ALLOWED_PORTS={','.join(_outbound_ports)!r} must be port numbers separated by commas."
    )
XORVENTA_OUTBOUND_ALLOWED_PORTS = frozenset(int(port) for port in _outbound_ports)
# Exact loopback servers run beside the product that every process may read (http://127.0.0.1:8001):
# `make run` names its demo website here for its web server and worker. Nothing else on loopback.
XORVENTA_OUTBOUND_LOCAL_SERVERS = env_list("XORVENTA_OUTBOUND_LOCAL_SERVERS", [])
for _server in XORVENTA_OUTBOUND_LOCAL_SERVERS:
    _parts = urlparse(_server)
    if (
        _parts.scheme not in ("http", "https")
        or not _parts.port
        or _parts.hostname not in ("127.0.0.1", "::1")
    ):
        raise ImproperlyConfigured(
            f"XORVENTA_OUTBOUND_LOCAL_SERVERS: {_server!r} is not a loopback address with a port "
            "(e.g. http://127.0.0.1:8001)."
        )

# Webhooks (apps/webhooks): a failed delivery is retried after RETRY_SECONDS, then twice that, four
# times... (capped at six hours) until MAX_ATTEMPTS tries; each request waits at most TIMEOUT seconds.
XORVENTA_WEBHOOK_RETRY_SECONDS = env_int("XORVENTA_WEBHOOK_RETRY_SECONDS", 30, minimum=1)
XORVENTA_WEBHOOK_MAX_ATTEMPTS = env_int("XORVENTA_WEBHOOK_MAX_ATTEMPTS", 10, minimum=1)
XORVENTA_WEBHOOK_TIMEOUT = env_int("XORVENTA_WEBHOOK_TIMEOUT", 10, minimum=1)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "pgserver": {"level": "WARNING"}},
}
