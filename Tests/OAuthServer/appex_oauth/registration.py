"""Dynamic client registration with a template client (RFC 7591's `software_id`), as Curity's
templatized DCR: a request that names a template client by `software_id` gets a new client with
the template's grant type and scope unless it names its own; one that names an unknown client,
or a client that is not a template, is refused. A request without `software_id` is the toolkit's
plain registration."""
import json

from django.http import JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.models import Application
from oauth2_provider.views import DynamicClientRegistrationView

# Clients a registration may name as its template (made by `manage.py seed`).
TEMPLATES = {"dcr-template-client-haapi-ios"}
TEMPLATE_NAME = "template"


@method_decorator(csrf_exempt, name="dispatch")
class TemplatedRegistration(DynamicClientRegistrationView):
    def post(self, request, *args, **kwargs):
        try:
            data = json.loads(request.body or b"{}")
        except ValueError:
            data = None
        if isinstance(data, dict) and "software_id" in data:
            template = Application.objects.filter(client_id=data["software_id"], name=TEMPLATE_NAME).first()
            if template is None or data["software_id"] not in TEMPLATES:
                return JsonResponse(
                    {"error": "invalid_client_metadata", "error_description": "software_id names no template client"},
                    status=400,
                )
            data.setdefault("grant_types", ["password", "refresh_token"])
            data.setdefault("token_endpoint_auth_method", "none")
            data.setdefault("client_name", "registered from " + template.client_id)
            data.setdefault("redirect_uris", [template.redirect_uris.split()[0]] if template.redirect_uris else [])
            request._body = json.dumps(data).encode()
        return super().post(request, *args, **kwargs)
