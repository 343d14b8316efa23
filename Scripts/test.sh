#!/usr/bin/env bash
# Runs every Appex test on a fresh machine: installs what the tests need (idempotent: Debian
# packages, the OAuth server's virtualenv), builds
# the package and its tests once, and runs them (Swift Testing, real processes and files).
#
# Before the tests, the checks that need no test build: formatting, imports, and the
# documentation (DocC, warnings as errors). After them, the product's tests (Examples/), then
# each fuzz target runs for 15 seconds, then every benchmark once (Scripts/bench.sh --smoke).
#
# Four suites run on their own: the templates' READMEs (below), the 500-launch soak (beside the others it keeps both cores busy),
# the host-death check ("extension gone within 1 s of its host"), which beside dozens of tests
# spawning processes on 2 cores would measure them instead of Appex, and the thread budget, which
# counts the process's threads (other suites' threads would count too).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's wall time, printed as it ends and again at the end: CI has 90 minutes for all of it.
started_all=$(date +%s)
step_times=()
step() {
  local name="$1" started
  shift
  started=$(date +%s)
  "$@"
  step_times+=("$(printf '%6d s  %s' $(($(date +%s) - started)) "$name")")
  echo "test.sh: $name took $(($(date +%s) - started)) s" >&2
}
step setup Scripts/setup.sh
# The code is formatted as .swift-format says (120 columns): formatting a copy changes nothing.
formatted="$(mktemp -d)"
cp -R Sources Tests Package.swift .swift-format "$formatted/"
(cd "$formatted" && swift format format --in-place --recursive --parallel Sources Tests Package.swift)
if ! diff -r -q Sources "$formatted/Sources" >/dev/null || ! diff -r -q Tests "$formatted/Tests" >/dev/null \
   || ! diff -q Package.swift "$formatted/Package.swift" >/dev/null; then
  diff -r -u Sources "$formatted/Sources" | head -40 >&2 || true
  echo "test.sh: the code is not formatted; run: swift format format --in-place --recursive Sources Tests Package.swift" >&2
  rm -rf "$formatted"
  exit 1
fi
rm -rf "$formatted"
# Only AppexSystem touches the OS: no other module imports the C library or the C shim.
if grep -rlnE 'import (Glibc|Musl|Darwin)|CAppexSystem' Sources --include='*.swift' | grep -v '^Sources/AppexSystem/'; then
  echo "test.sh: the files above import the C library or CAppexSystem; only Sources/AppexSystem may (docs/DESIGN.md, \"Modules\")" >&2
  exit 1
fi
# Only AppexSystem spawns processes or starts threads (the spawner thread, the event thread and
# the threads it names): no Foundation Process, fork, posix_spawn or Thread elsewhere.
if grep -rnE '\bProcess\(|Process\.run\(|launchedProcess\(|\bfork\(|\bvfork\(|posix_spawn|\bThread\(|Thread\.detachNewThread|pthread_create\(' Sources \
  --include='*.swift' | grep -v '^Sources/AppexSystem/' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'; then
  echo "test.sh: the lines above spawn a process or start a thread outside AppexSystem; use its Subprocess, SandboxedSpawn or startDetachedThread (docs/ARCHITECTURE.md)" >&2
  exit 1
fi
# The vocabulary imports nothing (not even Foundation), and the OS layer has no public API.
if grep -rnE '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))? )*((public|package|internal|fileprivate|private) )?import ' Sources/AppexVocabulary --include='*.swift'; then
  echo "test.sh: Sources/AppexVocabulary imports the modules above; it has no dependencies (docs/ARCHITECTURE.md)" >&2
  exit 1
fi
if grep -rnE '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))? )*((final|nonisolated|static|class|override|indirect|convenience|required) )*(open|public)[[:space:]]' Sources/AppexSystem --include='*.swift'; then
  echo "test.sh: the declarations above are public; AppexSystem's API is package-level only (docs/ARCHITECTURE.md)" >&2
  exit 1
fi
# The documentation builds with no warning: a DocC catalog for every library module, built with
# swift-docc-plugin, warnings as errors (in .build, the debug build the tests then complete; docs/DESIGN.md,
# "Documentation").
step documentation Scripts/docs.sh
# The public API equals its baseline in api/ (from the symbol graphs docs.sh extracted), and no
# wire type is public.
step api Scripts/api.sh
# The real OAuth server the token tests use (installed on first use into .build-oauth/), stopped
# when the tests end; the tests start it themselves too when run alone.
Scripts/oauth-server.sh start >/dev/null
trap 'Scripts/oauth-server.sh stop' EXIT
step build swift build --build-tests
# At most 6 tests at once (Swift Testing's own setting; ignored by a toolchain without it). Unbounded,
# every test starts at once on 2 cores and time-bounded checks (a 100 ms deadline, a 2-s token)
# waited 20 s for a thread; bounded, the run takes no longer (338 s against 351 s, measured).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=6
# Each test's own time (the `.timed` trait every suite carries), for the ten slowest at the end.
if grep -rnE '^[[:space:]]*@Suite' Tests/AppexTests --include='*.swift' | grep -v '\.timed'; then
  echo "test.sh: the suites above lack the .timed trait (@Suite(.timed)); their tests would be missing from the slowest" >&2
  exit 1
fi
export APPEX_TEST_TIMINGS="$PWD/.build/test-timings.tsv"
rm -f "$APPEX_TEST_TIMINGS"
step LaunchCycleTests swift test --skip-build --filter LaunchCycleTests
step HostDeathTests swift test --skip-build --filter HostDeathTests
step ThreadBudgetTests swift test --skip-build --filter ThreadBudgetTests
step 'main suite' swift test --skip-build --skip 'LaunchCycleTests|HostDeathTests|ThreadBudgetTests|TemplateTests|WindowBrowserTests|WidgetDesktopTests|SceneTests'
# The pages in Chromium, after the rest and by themselves: what they measure (an entry on the
# page within a second of its date, an event without a reload) is time, which five other
# suites' processes and browsers on two cores would make up.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=2 step pages swift test --skip-build --filter 'WindowBrowserTests|WidgetDesktopTests|SceneTests'
# The product (Examples/, a sibling package on Appex by path): its own tests, against the same server.
step Examples swift test --package-path Examples
# One trace across the process boundary: a host span and its extension's child span, exported through swift-otel.
step tracing swift test --package-path Examples/Tracing
# The libFuzzer targets (Fuzz/): every property-list reader, bundle loading, the IPC decoder and the view tree,
# 15 seconds each from the committed seeds; a crash fails the run (docs/DESIGN.md, "Fuzzing").
step fuzz Scripts/fuzz.sh all 15
# Every benchmark, once (Benchmarks/, a release build of its own): a benchmark that no longer
# builds, or crashes, fails CI (issue 28; docs/decisions/0157-benchmarks-in-ci.md).
step benchmarks Scripts/bench.sh --smoke
# The start layout extensions are linked with still names what their start runs (at least 80 % of
# Linker/extension-start.order is defined by the benchmark extension just built: a stale list
# costs resident memory), and that extension's start scans no protocol conformance before its
# first reply (under gdb; docs/decisions/0168-extension-start-layout.md).
step 'start layout' Scripts/extension-start-order.sh --check
# The templates' READMEs, run as written: each builds Appex in new packages (minutes of both cores),
# so they run last (a failure elsewhere is known half an hour sooner), apart from the time-bounded tests.
step templates swift test --skip-build --filter TemplateTests
echo "test.sh: the ten slowest tests (each its own time, queue wait excluded; a parameterized test's cases added up):"
awk -F '\t' '{ total[$2] += $1 } END { for (name in total) printf "%.3f\t%s\n", total[name], name }' "$APPEX_TEST_TIMINGS" |
  sort -rn | awk -F '\t' 'NR <= 10 { printf "  %8.1f s  %s\n", $1, $2 }'  # awk reads it all: no SIGPIPE under pipefail
echo "test.sh: every step passed in $(($(date +%s) - started_all)) s:"
printf '%s\n' "${step_times[@]}"
