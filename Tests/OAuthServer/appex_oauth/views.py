"""Bearer-protected resources the tests and ContactsExplorer call: who the user is, and the user's
contacts (scope `contacts`): a paged, incremental list, one contact, and a change to one."""
import base64
import datetime
import json
import secrets

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.http import JsonResponse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.views.generic import ProtectedResourceMetadataView, ScopedProtectedResourceMetadataView

from . import contacts_data
from .models import Contact

EDITABLE = ("name", "email", "phone", "company", "note")
MAX_LIMIT = 500


class Me(ProtectedResourceMetadataView):
    def get(self, request, *args, **kwargs):
        user = request.resource_owner
        return JsonResponse({"id": str(user.pk), "username": user.username, "name": user.get_full_name() or user.username})


def bad_request(message):
    return JsonResponse({"error": "invalid_request", "error_description": message}, status=400)


def parse_time(text):
    """An ISO 8601 date-time (a trailing Z allowed) or seconds since 1970, or None."""
    try:
        return datetime.datetime.fromtimestamp(float(text), tz=datetime.timezone.utc)
    except (OverflowError, OSError):
        return None  # a number, but no moment (inf, 1e400)
    except ValueError:
        pass
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def encode_cursor(contact):
    raw = f"{contact.modified.timestamp():.6f}:{contact.pk}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(text):
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        seconds, pk = raw.split(":")
        return datetime.datetime.fromtimestamp(float(seconds), tz=datetime.timezone.utc), int(pk)
    except (ValueError, UnicodeDecodeError, OverflowError, OSError):
        return None


class ContactList(ScopedProtectedResourceMetadataView):
    """GET /api/contacts?modifiedSince=&limit=&cursor= — the user's contacts modified at or after
    modifiedSince, oldest change first (then by id), `limit` a page (default 100, at most 500),
    and `nextCursor` for the next page (null on the last).
    GET /api/contacts?ids=1,2,3 — those of the user's contacts (at most 500 ids; ids that are not
    the user's are left out), in the order asked, in one answer (a widget refreshes its few
    contacts with one request)."""

    required_scopes = ["contacts"]

    def get(self, request, *args, **kwargs):
        query = Contact.objects.filter(owner=request.resource_owner)
        if "ids" in request.GET:
            try:
                ids = [int(part) for part in request.GET["ids"].split(",") if part]
            except ValueError:
                return bad_request("ids must be contact ids separated by commas")
            if not 1 <= len(ids) <= MAX_LIMIT:
                return bad_request(f"ids must name between 1 and {MAX_LIMIT} contacts")
            found = {contact.pk: contact for contact in query.filter(pk__in=ids)}
            return JsonResponse({
                "contacts": [found[pk].as_json() for pk in dict.fromkeys(ids) if pk in found],
                "nextCursor": None,
            })
        if "modifiedSince" in request.GET:
            since = parse_time(request.GET["modifiedSince"])
            if since is None:
                return bad_request("modifiedSince is neither an ISO 8601 date-time nor seconds since 1970")
            query = query.filter(modified__gte=since)
        if "cursor" in request.GET:
            after = decode_cursor(request.GET["cursor"])
            if after is None:
                return bad_request("the cursor is not one this server gave")
            moment, pk = after
            query = query.filter(Q(modified__gt=moment) | Q(modified=moment, pk__gt=pk))
        try:
            limit = int(request.GET.get("limit", "100"))
        except ValueError:
            return bad_request("limit is not a number")
        if not 1 <= limit <= MAX_LIMIT:
            return bad_request(f"limit must be between 1 and {MAX_LIMIT}")
        page = list(query.order_by("modified", "pk")[: limit + 1])
        more = len(page) > limit
        page = page[:limit]
        return JsonResponse({
            "contacts": [contact.as_json() for contact in page],
            "nextCursor": encode_cursor(page[-1]) if more else None,
        })


@method_decorator(csrf_exempt, name="dispatch")
class ContactDetail(ScopedProtectedResourceMetadataView):
    """GET /api/contacts/ID — one contact; PATCH with a JSON object of the fields to change
    (name, email, phone, company, note) — the contact as changed, its `modified` now."""

    required_scopes = ["contacts"]

    def contact(self, request, contact_id):
        return Contact.objects.filter(owner=request.resource_owner, pk=contact_id).first()

    def get(self, request, contact_id, *args, **kwargs):
        contact = self.contact(request, contact_id)
        if contact is None:
            return JsonResponse({"error": "not_found"}, status=404)
        return JsonResponse(contact.as_json())

    def patch(self, request, contact_id, *args, **kwargs):
        try:
            changes = json.loads(request.body or b"{}")
        except ValueError:
            return bad_request("the body is not JSON")
        if not isinstance(changes, dict) or not set(changes) <= set(EDITABLE) or not all(
            isinstance(value, str) for value in changes.values()
        ):
            return bad_request(f"the body must be an object of strings among {', '.join(EDITABLE)}")
        with transaction.atomic():
            contact = self.contact(request, contact_id)
            if contact is None:
                return JsonResponse({"error": "not_found"}, status=404)
            for field, value in changes.items():
                setattr(contact, field, value)
            contact.modified = timezone.now()
            contact.save()
        return JsonResponse(contact.as_json())


def seed_contacts(user, count, seed, hostile=False):
    """Gives `user` `count` generated contacts unless it has some."""
    if Contact.objects.filter(owner=user).exists():
        return
    Contact.objects.bulk_create(
        Contact(owner=user, **fields) for fields in contacts_data.generate(count, seed, hostile=hostile)
    )


@csrf_exempt
def new_user(request):
    """POST /test/users {"contacts": N} — a new user of its own (for a test or a benchmark that
    changes contacts without meeting another's), with N generated contacts; answers its username
    and password."""
    if request.method != "POST":
        return JsonResponse({"error": "POST"}, status=405)
    try:
        body = json.loads(request.body or b"{}")
        count = int(body.get("contacts", 0))
    except (ValueError, TypeError, AttributeError):
        return bad_request("the body must be {\"contacts\": N}")
    if not 0 <= count <= 100_000:
        return bad_request("contacts must be between 0 and 100000")
    username, password = "user-" + secrets.token_hex(6), secrets.token_hex(12)
    user = User.objects.create_user(username=username, password=password, first_name="Test", last_name=username)
    seed_contacts(user, count, seed=username, hostile=bool(body.get("hostile", False)))
    return JsonResponse({"username": username, "password": password, "contacts": count}, status=201)


@csrf_exempt
def revoke_user(request):
    """POST /test/revoke {"username": U} — revokes every token of user U at the server, as its owner
    would (the access tokens and the refresh tokens): the app learns of it only when it next uses
    them."""
    from oauth2_provider.models import AccessToken, RefreshToken

    from . import stats

    if request.method != "POST":
        return JsonResponse({"error": "POST"}, status=405)
    try:
        username = json.loads(request.body or b"{}")["username"]
    except (ValueError, KeyError, TypeError):
        return bad_request('the body must be {"username": U}')
    user = User.objects.filter(username=username).first()
    if user is None:
        return JsonResponse({"error": "not_found"}, status=404)
    refresh = list(RefreshToken.objects.filter(user=user, revoked__isnull=True))
    access = AccessToken.objects.filter(user=user)
    count = access.count()  # before revoking: a refresh token's revocation deletes its access token
    for token in access:
        stats.remember_revoked(token.token, username)
    for token in refresh:
        token.revoke()
    access.delete()
    return JsonResponse({"refreshTokens": len(refresh), "accessTokens": count})


def api_key(request):
    """What the request's `APIKey` header carried (SAP's API-key authentication), for the test of
    the header a configuration puts on its requests."""
    return JsonResponse({"apiKey": request.headers.get("APIKey")})
