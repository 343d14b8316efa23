#!/usr/bin/env bash
# A newcomer's first widget, timed as the README tells it: `appex new widget Weather`, then the
# shell block of the package's README, line by line as printed, to the widget drawn; then a
# one-line change to the widget's view, bundled again and drawn again. Each line is printed with
# `$` and its time; it ends with the figures (docs/benchmarks.md, "The developer's loop").
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

echo "first-widget.sh: each line's time:"
printf '%s\n' "${times[@]}"
echo "first-widget.sh: appex new and the README's block, to the widget drawn: $cold s; a one-line change, to it drawn again: $edit s"
