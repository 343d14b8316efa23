#!/usr/bin/env bash
# For users of the `appex` tool: build a host app and two extension bundles, sign them, list
# them with `appex list`, enable the one from outside the host, list again, and ask `appex doctor`
# about a tampered copy; then bundle two real extensions and call them. (The main job, the
# product, is Scripts/demo.sh.)
set -euo pipefail
cd "$(dirname "$0")/.."
script_started=$SECONDS
Scripts/setup.sh >/dev/null

swift build --product appex >/dev/null
swift build --product AppexFixtureEcho >/dev/null
swift build --product AppexFixtureTranslate >/dev/null
appex="$(swift build --show-bin-path)/appex"
echo_extension="$(swift build --show-bin-path)/AppexFixtureEcho"
translate_extension="$(swift build --show-bin-path)/AppexFixtureTranslate"

work="$(mktemp -d "${TMPDIR:-/tmp}/appex-demo-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export APPEX_HOME="$work/home"
export APPEX_EXTENSIONS_PATH="$work/Installed"
mkdir -p "$APPEX_EXTENSIONS_PATH"

plist() { # plist FILE BODY — writes an XML property list
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n%s\n</dict>\n</plist>\n' "$2" >"$1"
}
executable() { printf '#!/bin/sh\nexit 0\n' >"$1"; chmod 755 "$1"; }
extension_bundle() { # extension_bundle DIR BUNDLE_ID NAME
  mkdir -p "$1"
  plist "$1/Info.plist" "<key>CFBundleIdentifier</key><string>$2</string>
<key>CFBundleExecutable</key><string>$3</string>
<key>CFBundleName</key><string>$3</string>
<key>CFBundleVersion</key><string>1</string>
<key>EXAppExtensionAttributes</key><dict><key>EXExtensionPointIdentifier</key><string>com.example.hostapp.HostAppFeature</string></dict>"
  executable "$1/$3"
}

echo "== a host app that declares com.example.hostapp.HostAppFeature"
host="$work/HostApp.app"
mkdir -p "$host/ExtensionPoints" "$host/Extensions"
plist "$host/Info.plist" "<key>CFBundleIdentifier</key><string>com.example.hostapp</string>
<key>CFBundleExecutable</key><string>HostApp</string>
<key>CFBundleVersion</key><string>1</string>"
executable "$host/HostApp"
plist "$host/ExtensionPoints/HostAppFeature.appextensionpoint" "<key>com.example.hostapp.HostAppFeature</key>
<dict><key>EXPresentsUserInterface</key><false/><key>EXRequiresEnhancedSecurity</key><false/></dict>"

echo "== two extensions: Translate ships inside the host, Summarize is installed from elsewhere"
extension_bundle "$host/Extensions/Translate.appex" com.example.hostapp.translate Translate
extension_bundle "$APPEX_EXTENSIONS_PATH/Summarize.appex" com.example.tools.summarize Summarize

echo "== a team key, and every bundle signed with it"
"$appex" keygen --output "$work/team.key"
"$appex" sign "$host" --deep --key "$work/team.key"
"$appex" sign "$APPEX_EXTENSIONS_PATH/Summarize.appex" --key "$work/team.key"

echo; echo "\$ appex list --host HostApp.app"
"$appex" list --host "$host"

echo; echo "\$ appex enable --host HostApp.app com.example.tools.summarize"
"$appex" enable --host "$host" com.example.tools.summarize
echo; echo "\$ appex list --host HostApp.app"
"$appex" list --host "$host"

echo; echo "== someone edits the installed extension's executable after signing"
printf 'echo tampered\n' >>"$APPEX_EXTENSIONS_PATH/Summarize.appex/Summarize"
echo "\$ appex list --host HostApp.app --all --json"
"$appex" list --host "$host" --all --json
echo; echo "\$ appex doctor --host HostApp.app com.example.tools.summarize"
"$appex" doctor --host "$host" com.example.tools.summarize || true

echo; echo "== a real extension: its Info.plist comes from the binding in its code"
echo "\$ appex bundle --executable AppexFixtureEcho --output HostApp.app/Extensions/Echo.appex --identifier com.example.hostapp.echo --key team.key"
"$appex" bundle --executable "$echo_extension" --output "$host/Extensions/Echo.appex" --identifier com.example.hostapp.echo --key "$work/team.key"
echo "\$ appex call --host HostApp.app com.example.hostapp.echo '{\"command\":\"echo\",\"text\":\"hello from the host\"}'"
"$appex" call --host "$host" com.example.hostapp.echo '{"command":"echo","text":"hello from the host"}'
echo "(the reply came from a separate process: approved by discovery, launched, handshaken, then ended)"

echo; echo "== the seed's translate extension: an XPC-style session with a PeerHandler"
echo "\$ appex bundle --executable AppexFixtureTranslate --output HostApp.app/Extensions/Translator.appex --identifier com.example.hostapp.seed-translator --key team.key"
"$appex" bundle --executable "$translate_extension" --output "$host/Extensions/Translator.appex" --identifier com.example.hostapp.seed-translator --key "$work/team.key"
echo "\$ appex call --host HostApp.app com.example.hostapp.seed-translator '{\"text\":\"hello\"}'"
"$appex" call --host "$host" com.example.hostapp.seed-translator '{"text":"hello"}'
echo "walkthrough.sh: done in $((SECONDS - script_started)) s"
