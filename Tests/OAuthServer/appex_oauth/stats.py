"""Counts token-endpoint requests by grant type, so tests prove from the server's side how many
refreshes happened (GET /test/stats; POST /test/stats/reset)."""
import json
import threading

from django.http import JsonResponse

_lock = threading.Lock()
_counts = {}


class TokenRequestCounter:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        grant = request.POST.get("grant_type") if request.method == "POST" and request.path == "/o/token/" else None
        response = self.get_response(request)
        if grant:
            key = f"{grant}.{response.status_code}"
            with _lock:
                _counts[key] = _counts.get(key, 0) + 1
        return response


def stats(request):
    if request.method == "POST":
        with _lock:
            _counts.clear()
    with _lock:
        return JsonResponse(dict(_counts))
