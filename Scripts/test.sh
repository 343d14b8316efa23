#!/usr/bin/env bash
# Runs every Appex test on a fresh machine: installs what the tests need (idempotent), builds
# the package and its tests once, and runs them (Swift Testing, real processes and files).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh
swift build --build-tests
swift test --skip-build
