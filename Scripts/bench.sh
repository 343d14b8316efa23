#!/usr/bin/env bash
# Runs Appex's benchmarks (the sibling package in Benchmarks/, package-benchmark) and ends with
# one line per figure:
#     figure: NAME ours=… baseline=… ratio=…
# FILTER (optional) is a regular expression over figure names.
#
# Every figure NAME is the p50 of benchmark NAME beside the p50 of NAME.baseline, measured in
# the same run (docs/DESIGN.md, "Performance: measured, not assumed").
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh >/dev/null
filter="${1:-.*}"
out="$(mktemp -d "${TMPDIR:-/tmp}/appex-bench-XXXXXX")"
trap 'rm -rf "$out"' EXIT
# The benchmarks build their fixtures (1,000 signed bundles) under TMPDIR: keep them in $out.
export TMPDIR="$out"

# Figures whose baseline benchmark has another name.
declare -A baseline_of=(
  [discovery.snapshot.1000.cold]=discovery.snapshot.1000.baseline
  [discovery.snapshot.1000.warm]=discovery.snapshot.1000.baseline
)
# The benchmarks to run: the figures the filter selects, and their baselines.
bench_filter="$filter"
for name in "${!baseline_of[@]}"; do
  if [[ "$name" =~ $filter ]]; then bench_filter="$bench_filter|${baseline_of[$name]}"; fi
done

swift package --package-path Benchmarks --allow-writing-to-directory "$out" \
  benchmark --filter "($bench_filter)(\\.baseline)?" --format jmh --path "$out" --no-progress

python3 - "$out" "$filter" <<'PY'
import json, glob, re, sys
out, pattern = sys.argv[1], sys.argv[2]
p50 = {}
for path in glob.glob(out + "/*.jmh"):
    for element in json.load(open(path)):
        name = element["benchmark"].split(".", 1)[1] if element["benchmark"].startswith("DiscoveryBenchmarks.") else element["benchmark"]
        metric = element["primaryMetric"]
        p50[name] = (metric["scorePercentiles"]["50.0"], metric["scoreUnit"])
explicit = {
    "discovery.snapshot.1000.cold": "discovery.snapshot.1000.baseline",
    "discovery.snapshot.1000.warm": "discovery.snapshot.1000.baseline",
}
to_ns = {"ns": 1, "us": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
def show(value, unit):
    ns = value * to_ns.get(unit, 1)
    for u, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= f: return f"{ns / f:.3g}{u}"
    return f"{ns:.3g}ns"
for name in sorted(p50):
    if name.endswith(".baseline") or not re.search(pattern, name): continue
    base = explicit.get(name, name + ".baseline")
    if base not in p50:
        print(f"figure: {name} ours={show(*p50[name])} baseline=missing ratio=n/a")
        continue
    ours, base_value = p50[name], p50[base]
    ratio = (ours[0] * to_ns.get(ours[1], 1)) / (base_value[0] * to_ns.get(base_value[1], 1))
    print(f"figure: {name} ours={show(*ours)} baseline={show(*base_value)} ratio={ratio:.2f}")
PY
