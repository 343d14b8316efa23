#!/usr/bin/env bash
# Runs every Appex test on a fresh machine: installs what the tests need (idempotent), builds
# the package and its tests once, and runs them (Swift Testing, real processes and files).
#
# The 500-launch soak test runs on its own first: run beside the others it keeps both cores
# busy, and the tests that check a promptness ("extension gone within 1 s of its host") would
# measure the soak instead of Appex.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh
swift build --build-tests
swift test --skip-build --filter LaunchCycleTests
swift test --skip-build --skip LaunchCycleTests
