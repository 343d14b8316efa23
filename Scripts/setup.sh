#!/usr/bin/env bash
# Installs what building and testing Appex needs on a fresh Debian machine; idempotent.
set -euo pipefail
need=()
dpkg -s libsqlite3-dev >/dev/null 2>&1 || need+=(libsqlite3-dev)
# The sqlite3 shell: tests check the registry's integrity with it, as a person would.
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
# A real browser reads the widget host's HTML pages (WidgetBrowserTests): Debian's chromium, headless.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The window's pages are driven in that browser (WindowBrowserTests): Selenium and chromium's
# WebDriver, from Debian, for Debian's own /usr/bin/python3 (offline: no browser download).
dpkg -s chromium-driver >/dev/null 2>&1 || need+=(chromium-driver)
dpkg -s python3-selenium >/dev/null 2>&1 || need+=(python3-selenium)
# A static link of a program that uses URLSession (the demo's ContactsExplorer and RecentContacts,
# built by the appex-bundle plugin with the static Swift runtime) needs libcurl's development files.
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || need+=(libcurl4-openssl-dev)
# gdb watches an extension's start for protocol-conformance scans (Scripts/extension-start-order.sh
# --check, the last step of Scripts/test.sh; docs/decisions/0168-extension-start-layout.md).
command -v gdb >/dev/null 2>&1 || need+=(gdb)
# Python 3 runs the OAuth test server (Scripts/oauth-server.sh makes its virtualenv).
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
