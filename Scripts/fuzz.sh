#!/usr/bin/env bash
# Runs Appex's libFuzzer targets (the sibling package in Fuzz/; Fuzz/README.md says what each exercises) and ends
# each run with one line:
#     fuzz: TARGET runs=N seconds=S crashes=0
# Usage: Scripts/fuzz.sh TARGET SECONDS, Scripts/fuzz.sh all SECONDS (every target in turn), Scripts/fuzz.sh build
# (the targets' build alone: test.sh runs it beside the tests) or Scripts/fuzz.sh list.
#
# A target fuzzes a working copy of its seeds (Fuzz/Corpus/TARGET) in Fuzz/.build/fuzz/corpus/TARGET, where
# libFuzzer adds what it finds, so a run never dirties git and the next run starts from there. A crash, timeout or
# OOM is written to Fuzz/.build/fuzz/artifacts/TARGET/ (.build/artifacts is SwiftPM's) and makes the exit status
# non-zero (libFuzzer's own); the run's output is kept in Fuzz/.build/fuzz/logs/TARGET.log (its end is printed when
# the target fails).
set -euo pipefail
cd "$(dirname "$0")/.."
script_started=$SECONDS

# Every executable target in Fuzz/Sources is a fuzz target; FuzzSupport is their shared driver.
targets=()
for folder in Fuzz/Sources/*/; do
  name="$(basename "$folder")"
  [[ "$name" == FuzzSupport ]] || targets+=("$name")
done
usage() { echo "usage: Scripts/fuzz.sh TARGET|all SECONDS | build | list   (targets: ${targets[*]})" >&2; exit 2; }
if [[ "${1:-}" == list ]]; then printf '%s\n' "${targets[@]}"; exit 0; fi
build_only=false
if [[ $# -eq 1 && "$1" == build ]]; then build_only=true
else [[ $# -eq 2 && "$2" =~ ^[0-9]+$ ]] || usage
fi
if $build_only || [[ "$1" == all ]]; then selected=("${targets[@]}")
elif [[ " ${targets[*]} " == *" $1 "* ]]; then selected=("$1")
else usage
fi
seconds="${2:-0}"

# Coverage and AddressSanitizer on every Swift module, Appex's included; gold fails on these objects, lld links them.
swift build -c release --package-path Fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >&2
if $build_only; then
  echo "fuzz.sh: ${#selected[@]} target(s) built in $((SECONDS - script_started)) s"
  exit 0
fi
# Swift's backtracer, under ASan, ends a crash with a second, misleading ASan report of its own; libFuzzer's report
# shows the same stack, the runtime failure's message included (pipe it through `swift demangle` to read it).
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

# Runs one target; prints its fuzz: line (and, when it fails, the end of its log) and returns
# libFuzzer's exit status.
fuzz() {
  local target="$1" work="Fuzz/.build/fuzz"
  local corpus="$work/corpus/$1" artifacts="$work/artifacts/$1" log="$work/logs/$1.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  cp -R "Fuzz/Corpus/$target/." "$corpus/"
  local marker="$log.start" status=0 start=$SECONDS
  touch "$marker"
  "Fuzz/.build/release/$target" "$corpus" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?
  local runs crashes
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  # What this run wrote to the artifacts folder; a failure that wrote none still counts as one.
  crashes="$(find "$artifacts" -type f -newer "$marker" | wc -l)"
  if [[ $status -ne 0 && $crashes -eq 0 ]]; then crashes=1; fi
  if [[ $status -ne 0 ]]; then tail -n 60 "$log"; fi
  echo "fuzz: $target runs=${runs:-0} seconds=$((SECONDS - start)) crashes=$crashes"
  return "$status"
}

# Every selected target runs even if an earlier one crashed, as many at once as there are cores
# (each libFuzzer run is one process on one core: on 2 cores, 10 targets of 15 s take 75 s, not
# 150); each one's lines are printed when it ends. The first failure's status is the script's.
parallel="$(nproc)"
result=0
pids=()
outputs=()
for target in "${selected[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  output="$(mktemp)"
  outputs+=("$output")
  fuzz "$target" >"$output" 2>&1 &
  pids+=("$!")
done
for index in "${!pids[@]}"; do
  status=0
  wait "${pids[$index]}" || status=$?
  cat "${outputs[$index]}"
  rm -f "${outputs[$index]}"
  if [[ $status -ne 0 && $result -eq 0 ]]; then result=$status; fi
done
echo "fuzz.sh: ${#selected[@]} target(s) in $((SECONDS - script_started)) s"
exit "$result"
