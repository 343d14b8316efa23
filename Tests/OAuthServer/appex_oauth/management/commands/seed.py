"""Creates the test users (with their contacts) and clients; idempotent (`manage.py seed`)."""
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from oauth2_provider.models import Application

from appex_oauth.registration import TEMPLATE_NAME, TEMPLATES
from appex_oauth.views import seed_contacts

USERS = [("ada", "lovelace", "Ada", "Lovelace"), ("grace", "hopper", "Grace", "Hopper")]
# Public clients (no secret), as a native app is. "-short": access tokens live 2 seconds, "-brief" 5.
# Tests that count refreshes from the server's side use a client of their own.
CLIENTS = [
    "swift-public", "swift-short", "swift-race-short", "swift-expiry-brief", "swift-revoke", "swift-401",
    "contacts-explorer", "contacts-explorer-short",
]


class Command(BaseCommand):
    help = "Create the test users and OAuth clients."

    def handle(self, *args, **options):
        for username, password, first, last in USERS:
            user, _ = User.objects.get_or_create(username=username, defaults={"first_name": first, "last_name": last})
            user.set_password(password)
            user.save()
            # ada: 300 contacts, the first three with markup and control characters in their names.
            seed_contacts(user, 300 if username == "ada" else 60, seed=username, hostile=username == "ada")
        # Template clients (named TEMPLATE_NAME): a registration that names one by software_id
        # copies its settings.
        clients = [(client, client) for client in CLIENTS] + [(template, TEMPLATE_NAME) for template in TEMPLATES]
        for client, name in clients:
            Application.objects.update_or_create(
                client_id=client,
                defaults=dict(
                    name=name,
                    client_type=Application.CLIENT_PUBLIC,
                    authorization_grant_type=Application.GRANT_PASSWORD,
                    redirect_uris="http://127.0.0.1/callback",
                    skip_authorization=True,
                    algorithm="",
                ),
            )
        self.stdout.write("seeded")
