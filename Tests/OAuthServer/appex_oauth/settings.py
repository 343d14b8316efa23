"""Settings of the OAuth 2 authorization server Appex's token tests run against.

django-oauth-toolkit 3.4.1 on 127.0.0.1, SQLite-backed, in a state directory named by
APPEX_OAUTH_STATE (Scripts/oauth-server.sh makes it). Refresh tokens rotate and reuse protection
is on, as the cross-process single-flight test requires.
"""
import os

STATE = os.environ.get("APPEX_OAUTH_STATE", os.path.join(os.path.dirname(__file__), "..", "state"))
SECRET_KEY = "appex-test-server-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "appex_oauth",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "appex_oauth.stats.TokenRequestCounter",
]
ROOT_URLCONF = "appex_oauth.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [os.path.join(os.path.dirname(__file__), "templates")],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
}]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(STATE, "db.sqlite3"),
        # Concurrent refreshes from many processes: take the write lock at BEGIN, no "database is
        # locked". The file is switched to WAL once by Scripts/oauth-server.sh (a persistent
        # mode), so token checks read while a refresh writes.
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        # One connection per server thread, kept: no open/close churn (the last connection to
        # close checkpoints the WAL under an exclusive lock).
        "CONN_MAX_AGE": None,
    }
}
# Client secrets are checked on every token request: a fast hasher keeps the tests about Appex.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
USE_TZ = True
LOGIN_URL = "/accounts/login/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
LOGGING = {"version": 1, "disable_existing_loggers": True}

def token_lifetime(request):
    """Access-token lifetime per client: names ending in "-short" get 2 seconds, in "-brief" 5 seconds
    (room for a loaded machine between a refresh and the request that uses it)."""
    client = getattr(request, "client", None)
    name = getattr(client, "name", "") or ""
    if name.endswith("-short"):
        return 2
    return 5 if name.endswith("-brief") else 3600

OAUTH2_PROVIDER = {
    "SCOPES": {"read": "Read", "write": "Write", "contacts": "Your contacts"},
    "DEFAULT_SCOPES": ["read", "write"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "EXTRA_SERVER_KWARGS": {"token_expires_in": token_lifetime},
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "OAUTH2_VALIDATOR_CLASS": "appex_oauth.validator.Validator",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
}
