#!/usr/bin/env bash
# The README's test command. `Scripts/test.sh` runs the gate, what every change must pass: the
# checks that need no test build (formatting, imports, the documentation, the public API), one
# build of the package and its tests (the library, the CLI, the product in Examples/ and the
# READMEs' samples, in one graph), then the tests tier by tier (docs/ARCHITECTURE.md, "Tests"):
#
#   alone    the suites that measure time or count threads, by themselves
#   main     every suite without a tier's tag, six tests at once
#   browser  the pages in headless Chromium, two at once
#   product  ContactsExplorer against the real server (Examples/Tests), the demo's story
#
# `Scripts/test.sh --full` (what CI runs, through .ci/run) then adds what takes longest: the
# trace across processes (Examples/Tracing, swift-otel), every benchmark once (debug) and the start
# layout's check, each in the same graph as the tests (their targets join it when APPEX_TRACING or
# APPEX_BENCHMARKS is set: Package.swift), each fuzz target for 15 seconds (Fuzz/, a package of
# its own: sanitizers; it builds beside the tiers), and last the template tier (the templates' READMEs, run as printed, each
# compiling a new package).
#
# It installs what the tests need (idempotent: Debian packages, the OAuth server's virtualenv),
# and ends with each step's time and the ten slowest tests.
set -euo pipefail
cd "$(dirname "$0")/.."
full=false
case "${1:-}" in
  --full) full=true ;;
  "") ;;
  *) echo "usage: Scripts/test.sh [--full]" >&2; exit 2 ;;
esac
# Each step's wall time, printed as it ends and again at the end: CI has 90 minutes for all of it.
started_all=$(date +%s)
step_times=()
step() {
  local name="$1" started status=0
  shift
  started=$(date +%s)
  "$@" || status=$?
  if ((status != 0)); then
    echo "test.sh: $name failed (status $status) after $(($(date +%s) - started)) s" >&2
    return "$status"
  fi
  step_times+=("$(printf '%6d s  %s' $(($(date +%s) - started)) "$name")")
  echo "test.sh: $name took $(($(date +%s) - started)) s" >&2
}
step setup Scripts/setup.sh
# The code is formatted as .swift-format says (120 columns): formatting a copy changes nothing.
# (Tests/Samples is the READMEs' samples byte for byte: not reformatted.)
formatted="$(mktemp -d)"
mkdir -p "$formatted/Examples"
cp -R Sources Tests Package.swift .swift-format "$formatted/"
cp -R Examples/Sources Examples/Tests "$formatted/Examples/"
rm -rf "$formatted/Tests/Samples"
(cd "$formatted" && swift format format --in-place --recursive --parallel Sources Tests Examples Package.swift)
unformatted="$(diff -r -q -x Samples Sources "$formatted/Sources"; diff -r -q -x Samples Tests "$formatted/Tests";
  diff -r -q Examples/Sources "$formatted/Examples/Sources"; diff -r -q Examples/Tests "$formatted/Examples/Tests";
  diff -q Package.swift "$formatted/Package.swift")" || true
if [[ -n "$unformatted" ]]; then
  printf '%s\n' "$unformatted" >&2
  echo "test.sh: the files above are not formatted; run: swift format format --in-place --recursive Sources Tests Examples/Sources Examples/Tests Package.swift (Tests/Samples: Scripts/samples.sh)" >&2
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
# Every module of this package a target imports is one of its declared dependencies (SwiftPM's
# own check, on the build below, accepts a module another dependency brings along).
step imports bash -c 'set -o pipefail; swift package describe --type json | Scripts/check-imports.py'
# The documentation builds with no warning: a DocC catalog for every library module, built with
# swift-docc-plugin, warnings as errors (in .build, the debug build the tests then complete;
# docs/decisions/0157).
step documentation Scripts/docs.sh
# The public API equals its baseline in api/ (from the symbol graphs docs.sh extracted), and no
# wire type is public.
step api Scripts/api.sh
# The real OAuth server the token tests use (installed on first use into .build-oauth/), stopped
# when the tests end; the tests start it themselves too when run alone.
Scripts/oauth-server.sh start >/dev/null
fuzz_build=''
# On any exit: the OAuth server stopped, and the fuzz targets' build (below), if still running, ended.
trap 'Scripts/oauth-server.sh stop; if [[ -n "$fuzz_build" ]]; then kill -TERM -- "-$fuzz_build" 2>/dev/null || true; fi' EXIT
# An import of a module that is no dependency at all, even indirectly, fails the build.
step build swift build --build-tests --explicit-target-dependency-import-check error
# Every suite carries the .timed trait: it runs the suite in its tier (APPEX_TEST_TIER) and times
# each test for the ten slowest at the end.
if grep -rnE '^[[:space:]]*@Suite' Tests/AppexTests Examples/Tests Examples/Tracing/Tests --include='*.swift' | grep -v '\.timed'; then
  echo "test.sh: the suites above lack the .timed trait (@Suite(.timed)): they would run in every tier, untimed" >&2
  exit 1
fi
# Every process a test starts has no signal blocked (runWithSignalsUnblocked, Tests/AppexTestTiers):
# one started with run() on a test's thread never gets terminate()'s SIGTERM.
if grep -rnE 'try [A-Za-z]+\.run\(\)' Tests/AppexTests Examples/Tests Examples/Tracing/Tests --include='*.swift' |
  grep -v '^Tests/AppexTests/ProcessSignalsTests.swift:'; then
  echo "test.sh: the tests above start a process with run(); use runWithSignalsUnblocked() (Tests/AppexTestTiers)" >&2
  exit 1
fi
export APPEX_TEST_TIMINGS="$PWD/.build/test-timings.tsv"
rm -f "$APPEX_TEST_TIMINGS"
# tier NAME WIDTH LIMIT — the tests of one tier (Tests/AppexTestTiers), at most WIDTH at once (Swift
# Testing's own setting). Unbounded, every test starts at once on 2 cores and time-bounded checks
# (a 100 ms deadline, a 2-s token) waited 20 s for a thread; the pages measure time too (an entry
# within a second of its date, an event without a reload), so they run two at once.
#
# A test that runs past its tier's limit ends its run, saying which it was, what else ran, and
# each thread's stack (TestWatchdog, Tests/AppexTestTiers); LIMIT seconds (several times the
# tier's time on a loaded machine) end a run that goes on after its tests, and the processes
# then left are printed. (On 2026-12-07 CI's 90 minutes ran out in the product tier, with
# nothing to say what it waited for.)
tier() {
  local status=0
  APPEX_TEST_TIER="$1" SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="$2" \
    step "$1 tier" timeout --foreground --kill-after=30 "$3" swift test --skip-build || status=$?
  if ((status == 124 || status == 137)); then
    echo "test.sh: the $1 tier did not end within $3 s; what was left running:" >&2
    ps -e --forest -o pid,ppid,etimes,args >&2
    pkill -KILL -f "$PWD/.build/.*PackageTests.xctest" || true
  fi
  return "$status"
}
tier alone 1 600
if $full; then
  # The fuzz targets' build (Fuzz/: a package of its own, whose .build nothing here locks), beside the main,
  # browser and product tiers at the lowest priority: those tiers leave the cores idle much of the time (waiting
  # on processes, sockets and the browser), and the build takes those cycles, not theirs (CI's fuzz step was 254 s
  # of building before 80 of fuzzing). Its own process group (set -m), so that an early exit can end it; the
  # same session, so that nice weighs it against the tiers (the kernel's autogroups are per session).
  fuzz_build_log="$(mktemp)"
  set -m
  nice -n 19 Scripts/fuzz.sh build </dev/null >"$fuzz_build_log" 2>&1 &
  fuzz_build=$!
  set +m
fi
tier main 6 1200
tier browser 2 900
tier product 6 900
if $full; then
  # One trace across the process boundary: a host span and its extension's child span, exported
  # through swift-otel (only this step builds it), as Examples/Tracing/README.md prints it.
  APPEX_TRACING=1 step tracing swift test --filter TracingTests
  # The libFuzzer targets (Fuzz/): every property-list reader, bundle loading, the IPC decoder and
  # the view tree, 15 seconds each from the committed seeds; a crash fails the run.
  # (Its build, started beside the tiers, is done first: the step's own build is then a no-op.)
  fuzz_built=0
  wait "$fuzz_build" || fuzz_built=$?
  fuzz_build=''
  if ((fuzz_built != 0)); then
    tail -n 60 "$fuzz_build_log"
    echo "test.sh: building the fuzz targets failed (Scripts/fuzz.sh build, status $fuzz_built)" >&2
    exit 1
  fi
  tail -n 1 "$fuzz_build_log"
  rm -f "$fuzz_build_log"
  step fuzz Scripts/fuzz.sh all 15
  # Every benchmark, once (Benchmarks/, a debug build beside the tests'): a benchmark that no
  # longer builds, or crashes, fails CI (docs/decisions/0157-benchmarks-in-ci.md).
  step benchmarks Scripts/bench.sh --smoke
  # The start layout extensions are linked with still names what their start runs
  # (docs/decisions/0168-extension-start-layout.md).
  step 'start layout' Scripts/extension-start-order.sh --check
  # The templates' READMEs, run as printed: each compiles Appex in a new package (minutes of both
  # cores), so they run last: a failure elsewhere is known half an hour sooner.
  tier template 3 2700
fi
echo "test.sh: the ten slowest tests (each its own time, queue wait excluded; a parameterized test's cases added up):"
awk -F '\t' '{ total[$2] += $1 } END { for (name in total) printf "%.3f\t%s\n", total[name], name }' "$APPEX_TEST_TIMINGS" |
  sort -rn | awk -F '\t' 'NR <= 10 { printf "  %8.1f s  %s\n", $1, $2 }'  # awk reads it all: no SIGPIPE under pipefail
if $full; then what="every step"; else what="the gate"; fi
echo "test.sh: $what passed in $(($(date +%s) - started_all)) s:"
printf '%s\n' "${step_times[@]}"
