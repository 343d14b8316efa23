"""Routes: the toolkit's endpoints under /o/, its RFC 8414 metadata at the server root, a login
form for the authorization-code flow, client registration with a template client, the bearer-protected resources (the user; the user's
contacts, scope `contacts`), the test counters, new test users and the instance token."""
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider import urls as toolkit

from . import registration, stats, views

urlpatterns = [
    path("", include((toolkit.metadata_urlpatterns, "metadata"))),
    # Registration with a template client first; the toolkit's own route behind it is never reached.
    path("o/register/", registration.TemplatedRegistration.as_view()),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("api/me", views.Me.as_view()),
    path("api/contacts", views.ContactList.as_view()),
    path("api/contacts/<int:contact_id>", views.ContactDetail.as_view()),
    path("test/users", views.new_user),
    path("test/revoke", views.revoke_user),
    path("test/stats", csrf_exempt(stats.stats)),
    path("test/instance", stats.instance),
    path("test/apikey", views.api_key),
]
