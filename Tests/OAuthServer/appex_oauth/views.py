"""Bearer-protected resources the tests and the showcase call."""
from django.http import JsonResponse
from oauth2_provider.views.generic import ProtectedResourceMetadataView


class Me(ProtectedResourceMetadataView):
    def get(self, request, *args, **kwargs):
        user = request.resource_owner
        return JsonResponse({"id": str(user.pk), "username": user.username, "name": user.get_full_name() or user.username})


class Contacts(ProtectedResourceMetadataView):
    def get(self, request, *args, **kwargs):
        return JsonResponse({"contacts": [
            {"id": "1", "name": "Ada Lovelace", "email": "ada@example.com"},
            {"id": "2", "name": "Grace Hopper", "email": "grace@example.com"},
            {"id": "3", "name": "Katherine Johnson", "email": "katherine@example.com"},
        ]})
