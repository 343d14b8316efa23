"""Counts token-endpoint requests by grant type and status, overall ("refresh_token.200") and per
client ("swift-race.refresh_token.200") and, for refreshes, per user ("ada.refresh_token.200"), and contacts requests by kind and status, overall
("contacts.list.200", "contacts.get.200", "contacts.patch.200") and per user
("ada.contacts.list.200"), so tests prove from the server's side how many refreshes
happened (GET /test/stats; POST /test/stats resets). GET /test/stats?slow=1 adds the requests
that took more than 0.5 s. GET /test/instance names this server instance (see instance).
A contacts request with an Idempotency-Key header is also counted once per key
("contacts.idempotent.first", "ada.contacts.idempotent.first") and again for each repeat of a key
("...idempotent.repeat"): what a host serving a widget's request sends, so tests count requests
served, not attempts. A contacts request refused for an access token POST /test/revoke deleted
is counted for that token's user ("ada.contacts.list.401"), not as "?": tests that run beside one
another each count their own user's refusals."""
import os
import threading
import time

from django.http import JsonResponse

_lock = threading.Lock()
_counts = {}
_slow = []
_idempotency_keys = set()
_revoked_owners = {}  # access token -> username, for the tokens POST /test/revoke deleted


def remember_revoked(token, username):
    """Called by POST /test/revoke for each access token it deletes: a later request with it is
    counted for `username`."""
    with _lock:
        _revoked_owners[token] = username


def _owner(request):
    user = getattr(request, "resource_owner", None)
    if user is not None:
        return user.username
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    with _lock:
        return _revoked_owners.get(token, "?") if scheme.lower() == "bearer" else "?"


class TokenRequestCounter:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        is_token = request.method == "POST" and request.path == "/o/token/"
        grant = request.POST.get("grant_type") if is_token else None
        client = request.POST.get("client_id", "?") if is_token else None
        # A refresh is also counted by the user whose refresh token it is (looked up before the
        # request rotates it): "ada.refresh_token.200".
        owner = None
        if grant == "refresh_token":
            from oauth2_provider.models import RefreshToken

            token = RefreshToken.objects.filter(token=request.POST.get("refresh_token", "")).select_related("user").first()
            owner = token.user.username if token is not None else "?"
        started = time.monotonic()
        response = self.get_response(request)
        elapsed = time.monotonic() - started
        if elapsed > 0.5:
            with _lock:
                _slow.append(f"{request.method} {request.path} {response.status_code} {elapsed:.3f}s")
        keys = []
        if grant:
            keys = [f"{grant}.{response.status_code}", f"{client}.{grant}.{response.status_code}"]
            if owner:
                keys.append(f"{owner}.{grant}.{response.status_code}")
        elif request.path.startswith("/api/contacts"):
            # contacts.list / contacts.get / contacts.patch, overall and per user.
            what = "list" if request.path == "/api/contacts" else request.method.lower()
            owner = _owner(request)
            keys = [f"contacts.{what}.{response.status_code}", f"{owner}.contacts.{what}.{response.status_code}"]
            key = request.headers.get("Idempotency-Key")
            if key and response.status_code == 200:
                with _lock:
                    seen = (owner, key) in _idempotency_keys
                    _idempotency_keys.add((owner, key))
                kind = "repeat" if seen else "first"
                keys += [f"contacts.idempotent.{kind}", f"{owner}.contacts.idempotent.{kind}"]
        if keys:
            with _lock:
                for key in keys:
                    _counts[key] = _counts.get(key, 0) + 1
        return response


def stats(request):
    if request.method == "POST":
        with _lock:
            _counts.clear()
            _slow.clear()
            _idempotency_keys.clear()
    with _lock:
        return JsonResponse(dict(_counts, slow=list(_slow)) if request.GET.get("slow") else dict(_counts))


def instance(request):
    """The token Scripts/oauth-server.sh made for this start (APPEX_OAUTH_INSTANCE) and the server's
    pid: the script's readiness check and the tests compare the token with the one the script
    published, so they never mistake another server on a reused port for this one."""
    return JsonResponse({"instance": os.environ.get("APPEX_OAUTH_INSTANCE", ""), "pid": os.getpid()})
