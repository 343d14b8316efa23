"""A validator that lets one test client use both the password grant and authorization code +
PKCE (django-oauth-toolkit allows one grant type per application), as the README's
`appex auth login` example needs with the client `swift-public`, and ContactsExplorer's
`login --pkce` with `contacts-explorer`."""
from oauth2_provider.models import AbstractApplication
from oauth2_provider.oauth2_validators import OAuth2Validator

BOTH = {"password", "authorization_code", "refresh_token"}
PREFIXES = ("swift-", "contacts-explorer")


class Validator(OAuth2Validator):
    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        if client.name.startswith(PREFIXES) and grant_type in BOTH:
            return True
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        if client.name.startswith(PREFIXES) and response_type == "code":
            return True
        return super().validate_response_type(client_id, response_type, client, request, *args, **kwargs)
