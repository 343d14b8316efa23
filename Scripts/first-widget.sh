#!/usr/bin/env bash
# A newcomer's first widget, timed as the README tells it: `appex new widget Weather`, then the
# shell block of the package's README, line by line as printed, to the widget drawn; then a
# one-line change to the widget's view, bundled again and drawn again. Each line is printed with
# `$` and its time; then the edit-to-screen loop of `appex widgets serve --watch` (figure
# widget.edit-to-screen), against the incremental `swift build` of the same kind of change; it
# ends with the figures (docs/benchmarks.md, "The developer's loop").
#
# It needs the installed `appex` (Scripts/install.sh) on the PATH, as the README's reader has
# it, and works in a temporary folder with its own APPEX_HOME, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
version="$(sed -n 's/^package let appexVersion = "\(.*\)"$/\1/p' Sources/AppexCommandCore/Version.swift)"
if [[ "$(appex --version 2>/dev/null || true)" != "$version" ]]; then
  echo "first-widget.sh: no appex $version on the PATH: run Scripts/install.sh first (it puts appex in ~/.local/bin)" >&2
  exit 1
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/first-widget-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export APPEX_HOME="$work/home"
export APPEX_APPS_PATH="$work/Applications"
mkdir -p "$APPEX_APPS_PATH"
times=()
# timed LINE — runs a README line as printed, in this shell (its `export` holds for the next).
timed() {
  local line="$1" begun=$SECONDS
  printf '$ %s\n' "$line"
  eval "$line"
  times+=("$(printf '%5d s  %s' $((SECONDS - begun)) "$line")")
}
cd "$work"
timed "appex new widget Weather --output ."
cd Weather
block="$(awk '/^```sh$/ { inside = 1; next } /^```$/ { if (inside) exit } inside' README.md)"
while IFS= read -r line; do
  [[ -n "$line" ]] && timed "$line"
done <<<"$block"
cold=$((SECONDS - started))
shown="$(appex widgets show Weather)"
[[ "$shown" == *"Hello from Weather"* ]] || { echo "first-widget.sh: the widget was not drawn: $shown" >&2; exit 1; }

echo "== a one-line change to the widget's view, bundled and drawn again"
edit_started=$SECONDS
sed -i 's/Text(entry.message)/Text("Edited: " + entry.message)/' Sources/WeatherCore/WeatherCore.swift
bundle_line="$(grep '^swift package appex-bundle' <<<"$block")"
timed "$bundle_line"
timed "appex widgets show Weather"
edit=$((SECONDS - edit_started))
shown="$(appex widgets show Weather)"
[[ "$shown" == *"Edited: Hello from"* ]] || { echo "first-widget.sh: the change was not drawn: $shown" >&2; exit 1; }

echo "== edit to screen: appex widgets serve --watch, against the incremental swift build of the same change"
# The baseline first, with nothing watching: a one-line change, then the incremental debug build.
swift build >/dev/null 2>&1
sed -i 's/"Edited: "/"Baseline: "/' Sources/WeatherCore/WeatherCore.swift
build_started=$(date +%s%N)
swift build >/dev/null 2>&1
build_ms=$((($(date +%s%N) - build_started) / 1000000))
# Then the desktop with --watch, and the same kind of change: until the tile shows it.
appex widgets serve --watch . --key team.key >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 600); do [[ -s "$work/serve.out" ]] && grep -q '^watch: built' "$work/serve.err" && break; sleep 0.1; done
link="$(head -1 "$work/serve.out")"
base="${link%%/login*}"
curl -s -c "$work/cookies" -o /dev/null "$link"
page() { curl -s -b "$work/cookies" "$base/"; }
for _ in $(seq 1 600); do page | grep -q 'Baseline: Hello from' && break; sleep 0.1; done
page | grep -q 'Baseline: Hello from' || { echo "first-widget.sh: the desktop does not show the widget" >&2; cat "$work/serve.err" >&2; exit 1; }
sed -i 's/"Baseline: "/"Watched: "/' Sources/WeatherCore/WeatherCore.swift
watch_started=$(date +%s%N)
for _ in $(seq 1 3000); do page | grep -q 'Watched: Hello from' && break; sleep 0.02; done
watch_ms=$((($(date +%s%N) - watch_started) / 1000000))
page | grep -q 'Watched: Hello from' || { echo "first-widget.sh: the desktop never showed the change" >&2; cat "$work/serve.err" >&2; exit 1; }
grep '^watch: built in' "$work/serve.err" | tail -1
kill $serve_pid
printf 'figure: widget.edit-to-screen %d ms, against the incremental swift build %d ms: +%d ms (target: +2000 ms at most)\n' \
  "$watch_ms" "$build_ms" $((watch_ms - build_ms))

echo "first-widget.sh: each line's time:"
printf '%s\n' "${times[@]}"
echo "first-widget.sh: appex new and the README's block, to the widget drawn: $cold s; a one-line change, to it drawn again: $edit s"
