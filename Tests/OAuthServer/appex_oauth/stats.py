"""Counts token-endpoint requests by grant type and status, overall ("refresh_token.200") and per
client ("swift-race.refresh_token.200"), so tests prove from the server's side how many refreshes
happened (GET /test/stats; POST /test/stats resets)."""
import json
import threading

from django.http import JsonResponse

_lock = threading.Lock()
_counts = {}


class TokenRequestCounter:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        is_token = request.method == "POST" and request.path == "/o/token/"
        grant = request.POST.get("grant_type") if is_token else None
        client = request.POST.get("client_id", "?") if is_token else None
        response = self.get_response(request)
        if grant:
            with _lock:
                for key in (f"{grant}.{response.status_code}", f"{client}.{grant}.{response.status_code}"):
                    _counts[key] = _counts.get(key, 0) + 1
        return response


def stats(request):
    if request.method == "POST":
        with _lock:
            _counts.clear()
    with _lock:
        return JsonResponse(dict(_counts))
