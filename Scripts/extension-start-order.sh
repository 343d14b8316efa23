#!/usr/bin/env bash
# Records Linker/extension-start.order: the symbols a Swift extension's start touches (the Swift
# runtime, libdispatch, the C library and Appex's extension runtime), in the order it first
# touches them, from the benchmark extension (Benchmarks/Fixtures/BenchExtension) launched as a
# host launches it, under valgrind's lackey (Scripts/extension-start-order.py). Extensions are
# linked in that order (ld.lld --symbol-ordering-file): docs/decisions/0168-extension-start-layout.md.
#
# Scripts/extension-start-order.sh --check records nothing: it fails when less than 80 % of the list
# is still defined by the current build (a stale list costs resident memory, never correctness),
# or when the extension's start looks up a protocol conformance by scanning the binary (under gdb:
# an extension's start makes none, decision 0168).
# Record it again after a change to the extension runtime's start (AppexExtension, AppexIPC,
# AppexSystem) or a new toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmark targets are in the package's graph when APPEX_BENCHMARKS is set (Package.swift).
export APPEX_BENCHMARKS=1
swift build -c release --product BenchExtension >&2
bin="$(swift build -c release --show-bin-path)/BenchExtension"
if [ "${1:-}" = "--check" ]; then
  python3 Scripts/extension-start-order.py check "$bin" Linker/extension-start.order
  exec python3 Scripts/extension-start-order.py scans "$bin"
fi
command -v valgrind >/dev/null || { echo "extension-start-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
python3 Scripts/extension-start-order.py record --drop '$s14BenchExtension' --drop '$s15BenchInterfaces' \
  "$bin" Linker/extension-start.order
