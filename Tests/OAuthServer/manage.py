#!/usr/bin/env python3
"""The test authorization server's Django entry point (see Scripts/oauth-server.sh)."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "appex_oauth.settings")
    from django.core.management import execute_from_command_line
    execute_from_command_line(sys.argv)
