#!/usr/bin/env bash
# The main job: ContactsExplorer (Examples/), its RecentContacts widget and its extensions, against
# the real contacts server, as a user meets them. Each step says what it shows, runs the commands
# a person would type (printed with `$`), and checks what came out: a step that does not hold
# stops the story with "demo: step N did not hold" and exit 1.
#
#   1. the widget before login           7. another team's translator and widget: off until enabled
#   2. login                             8. a passcode: the tokens go behind it, the widget asks the
#   3. sync, with progress                  app (waiting until a background run answers)
#   4. the widget shows contacts         9. a new passcode: the widget's share renewed; then off
#   5. show a contact: it comes first   10. the session revoked at the server: "Log in again"
#   6. the access token expires: the    11. logout
#      widget refreshes it, once         then every widget, in the terminal and as an HTML page
#
# It starts the server (installing it on first use), builds the examples and `appex` (one debug build),
# installs ContactsExplorer.app on a temporary apps path and Lingua Labs' bundles (another team,
# its own key) on APPEX_EXTENSIONS_PATH, under a temporary APPEX_HOME, and removes them at the end.
#
# APPEX_DEMO_BIN=DIR takes `appex` and the examples from that folder instead of building them (the
# story's test does this with its own build). It ends with its parts' times.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
source Scripts/progress.sh
demo_started=$SECONDS

# long STEP ESTIMATE COMMAND... — runs a long command (a build, an install) with its output kept
# aside, saying first what it is and how long it takes, then, every 10 seconds, how far it is:
# the build tool's last "[n/m] …" line, or the time spent. Its output is in $long_output afterwards; a failure prints its end and stops.
long_output=""
long() {
  local what="$1" estimate="$2"
  shift 2
  local log started status=0
  log="$(mktemp "${TMPDIR:-/tmp}/appex-demo-XXXXXX")"
  printf '%s (%s)...\n' "$what" "$estimate"
  started=$SECONDS
  "$@" >"$log" 2>&1 &
  local pid=$!
  report_progress "$pid" "$log" "$started"
  wait "$pid" || status=$?
  long_output="$(cat "$log")"
  rm -f "$log"
  if ((status != 0)); then
    printf '%s\n' "$long_output" | tail -40 >&2
    printf 'demo: %s failed (exit %s)\n' "$what" "$status" >&2
    exit 1
  fi
  printf '  done in %ds\n' "$((SECONDS - started))"
}

long "preparing the machine" "seconds; a minute the first time, for Debian packages" Scripts/setup.sh
long "starting the contacts server" "seconds; a minute the first time, for its virtualenv" Scripts/oauth-server.sh start
port="$(Scripts/oauth-server.sh port)"
server="http://127.0.0.1:$port"
if [[ -n "${APPEX_DEMO_BIN:-}" ]]; then
  bin="$APPEX_DEMO_BIN"
else
  # One debug build of the package's graph: `appex` and the product share every module of Appex
  # (compiled once; a release build of each, as the plugin makes for shipping, took 3 times as long).
  build_estimate="about 4 minutes on a fresh clone on 2 cores, seconds once built"
  for product in appex ContactsExplorer RecentContacts Translate LinguaTranslate LinguaWidgets; do
    long "building $product" "$build_estimate" swift build --product "$product"
    build_estimate="seconds: what it shares with the first is built"
  done
  bin="$(swift build --show-bin-path)"
fi
built_at=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/contacts-demo-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export APPEX_HOME="$work/home"
export APPEX_APPS_PATH="$work/Applications"
export APPEX_EXTENSIONS_PATH="$work/Installed"
export CONTACTS_SERVER="$server"
# Access tokens of 2 seconds, so that step 6 can show one expiring.
export CONTACTS_CLIENT_ID="contacts-explorer-short"
mkdir -p "$APPEX_APPS_PATH" "$APPEX_EXTENSIONS_PATH"
app="$APPEX_APPS_PATH/ContactsExplorer.app"

# What a person types, and what they see: `$ ContactsExplorer ...`, `$ appex ...`.
# (No command may hang the story: each is given two minutes.)
ContactsExplorer() { timeout 120 "$app/ContactsExplorer" "$@"; }
appex() { timeout 120 "$bin/appex" "$@"; }
step=0
step() { step=$((step + 1)); printf '\n== %s. %s\n' "$step" "$1"; }
out=""
run() { # run COMMAND ARGS... — prints the command and its output; keeps the output in $out
  printf '$ %s\n' "$*"
  out="$("$@" 2>&1)" || { printf '%s\n' "$out"; fail "\`$*\` failed"; }
  printf '%s\n' "$out"
}
fail() { printf 'demo: step %s did not hold: %s\n' "$step" "$1" >&2; exit 1; }
expect() { # expect TEXT WHAT — $out must contain TEXT
  [[ "$out" == *"$1"* ]] || fail "expected $2 (\"$1\")"
}
refuse() { # refuse TEXT WHAT — $out must not contain TEXT
  [[ "$out" != *"$1"* ]] || fail "did not expect $2 (\"$1\")"
}
server_api() { # server_api METHOD PATH [JSON] — the test server's own endpoints, the answer's JSON
  python3 - "$server" "$@" <<'PY'
import json, sys, urllib.request
server, method, path = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
request = urllib.request.Request(server + path, data=body, method=method, headers={"Content-Type": "application/json"})
print(urllib.request.urlopen(request, timeout=30).read().decode())
PY
}
json() { python3 -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1], 0))' "$1"; }
refreshes() { server_api GET /test/stats | json "$user.refresh_token.200"; }

echo "== installing ContactsExplorer.app (with RecentContacts and Translate) and Lingua Labs' extensions"
appex keygen --output "$work/myapp.key" >/dev/null
appex keygen --output "$work/lingualabs.key" >/dev/null
cat >"$work/shared.entitlements" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>com.apple.security.application-groups</key><array><string>group.com.myapp.MyApp</string></array>
  <key>keychain-access-groups</key><array><string>com.myapp.MyApp</string></array>
</dict>
</plist>
PLIST
# The widget fetches contacts itself: its sandbox lets it connect only with the network entitlement.
cat >"$work/widget.entitlements" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>com.apple.security.application-groups</key><array><string>group.com.myapp.MyApp</string></array>
  <key>keychain-access-groups</key><array><string>com.myapp.MyApp</string></array>
  <key>com.apple.security.network.client</key><true/>
</dict>
</plist>
PLIST
# bundle PRODUCT OUTPUT [OPTION...] — the product's bundle, its Info.plist (or, for the app, its
# extension points) read from Examples/Sources/PRODUCT by `appex bundle`, as the appex-bundle
# plugin does with its release build.
bundle() {
  local product="$1" output="$2"
  shift 2
  printf '$ appex bundle --executable %s --sources %s --output %s %s\n' "${bin#"$root"/}/$product" "Examples/Sources/$product" "$output" "$*"
  appex bundle --executable "$bin/$product" --sources "Examples/Sources/$product" --output "$output" --force "$@"
}
bundle ContactsExplorer "$app" --identifier com.myapp.MyApp \
  --entitlements "$work/shared.entitlements" --key "$work/myapp.key"
bundle RecentContacts "$app/Extensions/RecentContacts.appex" \
  --identifier com.myapp.MyApp.RecentContacts --entitlements "$work/widget.entitlements" --key "$work/myapp.key"
bundle Translate "$app/Extensions/Translate.appex" --identifier com.myapp.MyApp.Translate --key "$work/myapp.key"
bundle LinguaTranslate "$APPEX_EXTENSIONS_PATH/Lingua.appex" \
  --identifier com.lingualabs.translate --name Lingua --key "$work/lingualabs.key"
bundle LinguaWidgets "$APPEX_EXTENSIONS_PATH/LinguaWidgets.appex" \
  --identifier com.lingualabs.widgets --key "$work/lingualabs.key"
account="$(server_api POST /test/users '{"contacts": 300, "hostile": true}')"
user="$(json username <<<"$account")"
password="$(json password <<<"$account")"
echo "a user of the server with 300 contacts (three with markup and control characters in their names): $user"

step "the widget before login: it asks nothing of the server"
run appex widgets show RecentContacts
expect "Log in to ContactsExplorer" "the widget to ask for a login"
stats="$(server_api GET /test/stats)"
[[ "$stats" != *"\"$user.contacts"* ]] || fail "the widget asked the server for contacts before login"
echo "(the server counted no contacts request from $user)"

step "log in (the password on standard input; \`login --pkce\` signs in in a browser)"
printf '$ ContactsExplorer login --user %s --password-stdin\n' "$user"
out="$(printf '%s\n' "$password" | ContactsExplorer login --user "$user" --password-stdin 2>&1)" || fail "$out"
printf '%s\n' "$out"
expect "logged in as Test $user" "the login to name the user"

step "sync: every contact into the app group's store (a progress bar on a terminal, a line a page here)"
run ContactsExplorer sync
expect "synced: 300 contacts" "all 300 contacts"

step "the widget shows the most recently changed contacts, fresh from the server"
run appex widgets show RecentContacts
refuse "Log in" "a login prompt"
expect "Recent contacts" "the contacts"
before="$out"

step "show a contact: marked recently used, it comes first in the widget"
printf '$ ContactsExplorer contacts | head -4\n'
contacts="$(ContactsExplorer contacts)" || fail "$contacts"
head -4 <<<"$contacts"
pick=""
while IFS=$'\t' read -r id name; do
  if [[ "$before" != *"$name"* && "$name" =~ ^[A-Za-z\ ]+$ ]]; then pick="$id"; picked="$name"; break; fi
done <<<"$contacts"
[[ -n "$pick" ]] || fail "no contact outside the widget to show"
run ContactsExplorer show "$pick"
expect "name: $picked" "the contact"
run appex widgets show RecentContacts
first="$(grep -m1 -E '│ +[^ │]' <<<"$(sed -n '/Recent contacts/,$p' <<<"$out" | tail -n +2)" || true)"
[[ "$first" == *"$picked"* ]] || fail "expected $picked first in the widget, found: $first"

step "the access token expires (2 s here); the widget refreshes it, once, and carries on"
sleep 3
refreshed="$(refreshes)"
started_ms=$(date +%s%3N)
run appex widgets reload RecentContacts
run appex widgets show RecentContacts
expect "$picked" "the contacts still shown"
refuse "Log in" "a login prompt"
now="$(refreshes)"
# One refresh for the expired token. On a busy machine the step can outlast a refreshed 2-s token
# too, and that one is refreshed in turn: at most one refresh per token that expired meanwhile,
# never two for one (the refreshes of all processes are one at a time: AppexAuth's article "Using the host's tokens").
took_ms=$(($(date +%s%3N) - started_ms))
count=$((now - refreshed))
((count >= 1 && count <= 1 + took_ms / 2000)) ||
  fail "the server counted $count refreshes in $((took_ms / 1000)) s of 2-s tokens, not one per expired token"
if ((count == 1)); then
  echo "(the server counted one refresh for $user: the widget used the host's refresh token)"
else
  echo "(the server counted $count refreshes for $user in $((took_ms / 1000)) s, one per 2-s token that expired: the widget used the host's refresh token)"
fi

step "another team's extensions (Lingua Labs): off until the owner enables them"
run ContactsExplorer extensions list
expect "unapproved com.lingualabs.translate" "Lingua's translator waiting for approval"
run appex widgets list --all
expect "unapproved" "Lingua's widget waiting for approval"
expect "com.lingualabs.widgets" "Lingua's widget listed"
run ContactsExplorer extensions enable com.lingualabs.translate
noted=""
while IFS=$'\t' read -r id name; do
  out="$(ContactsExplorer translate "$id" 2>&1)" || fail "$out"
  if [[ "$out" == *"(de)"* ]]; then noted="$id"; break; fi
done < <(head -40 <<<"$contacts")
[[ -n "$noted" ]] || fail "no contact with a note among the first 40"
run ContactsExplorer translate "$noted"
expect "Translate (fr):" "the app's own translator"
expect "Lingua (de):" "the translator the owner just enabled"
run appex widgets enable com.lingualabs.widgets
run appex widgets show
expect "Word of the Day" "Lingua's widget, now enabled"

step "a passcode (seed 002): the session's tokens go behind it, and the widget asks the app for its data"
printf '$ ContactsExplorer passcode set    (the passcode on standard input)\n'
out="$(printf 'correct horse 7\n' | ContactsExplorer passcode set 2>&1)" || fail "$out"
printf '%s\n' "$out"
expect "passcode set" "the passcode set"
run appex widgets show RecentContacts
expect "Waiting for ContactsExplorer" "the widget waiting for the app, which is not running"
run appex background run --host "$app"
expect "ran in the background" "a background run of the app (a systemd timer runs it)"
expect "answered 1 data request" "the widget's request answered"
run appex widgets show RecentContacts
refuse "Waiting" "the widget still waiting"
expect "$picked" "the contacts, fresh from the server through the app"
run appex aux list --group group.com.myapp.MyApp
expect "answered" "the request answered"

step "a new passcode: the widget's share of the paired key is renewed, and it keeps working; then off"
printf '$ ContactsExplorer passcode change    (the current passcode, then the new one)\n'
out="$(printf 'correct horse 7\nbattery staple 9\n' | ContactsExplorer passcode change 2>&1)" || fail "$out"
printf '%s\n' "$out"
expect "passcode changed" "the passcode changed"
run appex widgets show RecentContacts
expect "$picked" "the contacts (the app's last answer, while its new one waits)"
run appex background run --host "$app"
expect "answered 1 data request" "the request made with the renewed share answered"
run appex aux list --group group.com.myapp.MyApp
refuse "failed" "a request refused (a stale share)"
printf '$ ContactsExplorer passcode off    (the passcode on standard input)\n'
out="$(printf 'battery staple 9\n' | ContactsExplorer passcode off 2>&1)" || fail "$out"
printf '%s\n' "$out"
expect "shared again" "the tokens shared again"

step "the session is revoked at the server: the widget says \"Log in again\", and stops asking"
printf '$ (at the server) revoke every token of %s\n' "$user"
server_api POST /test/revoke "{\"username\": \"$user\"}" >/dev/null
run appex widgets reload RecentContacts
run appex widgets show RecentContacts
expect "Log in again" "the widget to ask for a new login"
refused="$(server_api GET /test/stats | json "contacts-explorer-short.refresh_token.400")"
run appex widgets show RecentContacts
expect "Log in again" "the same answer"
again="$(server_api GET /test/stats | json "contacts-explorer-short.refresh_token.400")"
[[ "$again" == "$refused" ]] || fail "the widget tried again without a reload"
echo "(shown again without a reload: nothing was sent to the server)"

step "log out: the widget is back to its first words"
run ContactsExplorer logout
expect "logged out" "the logout"
run appex widgets show RecentContacts
expect "Log in to ContactsExplorer" "the widget to ask for a login"

html="$root/.build/demo/widgets.html"
mkdir -p "$(dirname "$html")"
printf '\n== every widget, as the system draws it now\n'
run appex widgets show --html "$html"
echo
echo "The widgets as an HTML page: $html"

step "the windows: the widget desktop and the app's window, as local web pages"
# Each prints its one-time login link first; headless Chromium follows it (the link buys the
# browser its cookie and lands on the page) and takes a screenshot; then the window is stopped.
shots="$root/.build/demo"
# screenshot NAME COMMAND... — starts the window, screenshots its page in the light theme, then
# (a new link: SIGUSR1, since a link works once) in the dark one as NAME-dark, and stops it.
screenshot() {
  local name="$1"; shift
  local links="$work/$name.links"
  "$@" >"$links" 2>"$work/$name.log" &
  local pid=$!
  local theme line=0
  for theme in light dark; do
    line=$((line + 1))
    [[ $theme == dark ]] && kill -USR1 "$pid"
    local waited=0
    until (( $(wc -l <"$links") >= line )) || (( waited >= 300 )); do sleep 0.1; waited=$((waited + 1)); done
    local link; link="$(sed -n "${line}p" "$links")"
    [[ "$link" == http://*.localhost:*/login?token=* ]] || { kill "$pid" 2>/dev/null; fail "$name printed no login link: $(cat "$work/$name.log")"; }
    local shot="$shots/$name.png" flags=()
    if [[ $theme == dark ]]; then shot="$shots/$name-dark.png"; flags=(--force-dark-mode); fi
    # The desktop's first page waits for the widgets to be drawn (at most 10 s): no sleep here.
    timeout 60 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,760 \
      "${flags[@]}" --user-data-dir="$work/chromium-$name-$theme" --screenshot="$shot" "$link" >/dev/null 2>&1 \
      || { kill "$pid" 2>/dev/null; fail "chromium could not take the $name screenshot ($theme)"; }
    [[ -s "$shot" ]] || fail "no $name screenshot ($theme)"
    echo "$(basename "$shot" .png): $shot"
  done
  kill -TERM "$pid"
  wait "$pid" || true
}
screenshot widget-desktop "$bin/appex" widgets serve
screenshot contacts-window "$app/ContactsExplorer" window
echo "story: all $step steps held"
printf 'demo.sh: the machine, the server and the build took %d s, the bundles and the story %d s: %d s in all\n' \
  "$((built_at - demo_started))" "$((SECONDS - built_at))" "$((SECONDS - demo_started))"
