#!/usr/bin/env bash
# Installs `appex`, Appex's command-line tool, for the templates' READMEs and your own packages:
# a release build with the Swift runtime linked in, copied to ~/.local/bin (or APPEX_INSTALL_DIR).
# `appex new` run from there makes packages that depend on this checkout; the appex-bundle plugin
# uses it when it is the plugin's own release (`appex --version`), and builds nothing more.
#
# It says what it builds, prints the build's progress at least every 10 seconds, and ends with
# its time.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/progress.sh
started=$SECONDS
destination="${APPEX_INSTALL_DIR:-$HOME/.local/bin}"
log="$(mktemp "${TMPDIR:-/tmp}/appex-install-XXXXXX")"
trap 'rm -f "$log"' EXIT
echo "building appex in release mode with the static Swift runtime (about 8 minutes on a fresh clone on 2 cores, seconds once built)..."
swift build -c release --product appex --static-swift-stdlib >"$log" 2>&1 &
pid=$!
report_progress "$pid" "$log" "$started"
if ! wait "$pid"; then
  tail -40 "$log" >&2
  echo "install.sh: the build failed" >&2
  exit 1
fi
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
mkdir -p "$destination"
install -m 755 "$bin/appex" "$destination/appex.partial"
mv -f "$destination/appex.partial" "$destination/appex"
echo "installed $("$destination/appex" --version | sed 's/^/appex /') at $destination/appex"
case ":$PATH:" in
  *":$destination:"*) ;;
  *) echo "install.sh: $destination is not on your PATH: add it (export PATH=\"$destination:\$PATH\")" ;;
esac
echo "install.sh: done in $((SECONDS - started)) s"
