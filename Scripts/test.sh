#!/usr/bin/env bash
# Runs every Appex test on a fresh machine: installs what the tests need (idempotent: Debian
# packages, the OAuth server's virtualenv), builds
# the package and its tests once, and runs them (Swift Testing, real processes and files).
#
# Then each fuzz target runs for 15 seconds.
#
# Two suites run on their own: the 500-launch soak (beside the others it keeps both cores busy)
# and the host-death check ("extension gone within 1 s of its host"), which beside dozens of
# tests spawning processes on 2 cores would measure them instead of Appex.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh
# Only AppexSystem touches the OS: no other module imports the C library or the C shim.
if grep -rlnE 'import (Glibc|Musl|Darwin)|CAppexSystem' Sources --include='*.swift' | grep -v '^Sources/AppexSystem/'; then
  echo "test.sh: the files above import the C library or CAppexSystem; only Sources/AppexSystem may (docs/DESIGN.md, \"Modules\")" >&2
  exit 1
fi
# The real OAuth server the token tests use (installed on first use into .build-oauth/), stopped
# when the tests end; the tests start it themselves too when run alone.
Scripts/oauth-server.sh start >/dev/null
trap 'Scripts/oauth-server.sh stop' EXIT
swift build --build-tests
swift test --skip-build --filter LaunchCycleTests
swift test --skip-build --filter HostDeathTests
swift test --skip-build --skip 'LaunchCycleTests|HostDeathTests'
# The libFuzzer targets (Fuzz/): every property-list reader, bundle loading and the IPC decoder,
# 15 seconds each from the committed seeds; a crash fails the run (docs/DESIGN.md, "Fuzzing").
Scripts/fuzz.sh all 15
