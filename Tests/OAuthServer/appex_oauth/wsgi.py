"""The WSGI application, served by waitress (Scripts/oauth-server.sh): threaded and robust with
keep-alive connections, unlike Django's development server, which left reused connections
hanging under the race test's nine concurrent clients."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "appex_oauth.settings")
application = get_wsgi_application()
