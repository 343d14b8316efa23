#!/usr/bin/env bash
# Runs Appex's benchmarks (Benchmarks/, package-benchmark; in the package's graph when
# APPEX_BENCHMARKS is set, which this script sets) and ends with
# one line per figure:
#     figure: NAME ours=… baseline=… ratio=…
# and, for a figure measured in parts (aux.request.roundtrip), one line
#     parts: NAME seal=… write=… wake=… claim=… answer=… readback=…
# and, for a rate (ipc.concurrent.8), "rate: NAME ours=…/s baseline=…/s ratio=…"; all after a
# line "run: DATE, COMMIT, MACHINE, FILTER" that says where and when they were measured.
# FILTER (optional) is a regular expression over figure names.
#
# Every figure NAME is the p50 of benchmark NAME beside the p50 of NAME.baseline, measured in
# the same run (docs/DESIGN.md, "Performance: measured, not assumed"); latency distributions
# (ipc.roundtrip.*, defaults.notify) give NAME.p50 and NAME.p99 figures. A benchmark that records
# the custom metric "rss" (bytes, widget.host.rss.*) is a memory figure, shown in MB (2^20 bytes).
# Figures whose target is a difference (widget.timeline.first, widget.host.rss.*) are followed by
# a line "difference: NAME ours-baseline=…".
#
# Scripts/bench.sh --smoke runs every benchmark for one sample, no warm-up (APPEX_BENCH_SMOKE,
# Benchmarks/Sources/BenchSmoke), built in debug beside the tests (.build/debug: only the harness
# and the benchmarks compile), and prints the benchmarks that ran instead of figures: what
# Scripts/test.sh --full runs so that CI proves every benchmark builds and runs (a crash fails it),
# and that every figure can be computed (one that cannot, a baseline rounded to zero, fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
script_started=$SECONDS
Scripts/setup.sh >/dev/null
export APPEX_BENCHMARKS=1
smoke=0
configuration=release
if [ "${1:-}" = "--smoke" ]; then
  smoke=1
  configuration=debug
  export APPEX_BENCH_SMOKE=1
  shift
fi
filter="${1:-.*}"
out="$(mktemp -d "${TMPDIR:-/tmp}/appex-bench-XXXXXX")"
trap 'rm -rf "$out"' EXIT
# The benchmarks build their fixtures (1,000 signed bundles) under TMPDIR: keep them in $out.
export TMPDIR="$out"

# auth.* talks to the real OAuth server on 127.0.0.1:$APPEX_OAUTH_PORT (Benchmarks/AuthBenchmarks).
# When APPEX_OAUTH_PORT is set, the server already running there is used as it is. Otherwise
# this checkout's server (Scripts/oauth-server.sh, at a port the kernel chose) is used, started
# when the filter selects auth.* and stopped on exit unless it was already running, and its port
# is passed on in APPEX_OAUTH_PORT.
# The figures measured against the real server (or whose fixture logs in there): auth.request.fresh,
# auth.token.fresh, and the product's
# (contacts.sync.1000, widget.recentcontacts.reload and its .cold).
needs_server=0
for name in auth.request.fresh auth.token.fresh contacts.sync.1000 widget.recentcontacts.reload widget.recentcontacts.reload.cold; do
  if [[ "$name" =~ $filter || "$name.baseline" =~ $filter ]]; then needs_server=1; fi
done
if [[ $needs_server == 1 ]]; then
  if [ -n "${APPEX_OAUTH_PORT:-}" ]; then
    echo "bench.sh: using the OAuth server on port $APPEX_OAUTH_PORT (APPEX_OAUTH_PORT)" >&2
  elif Scripts/oauth-server.sh status >/dev/null 2>&1; then
    APPEX_OAUTH_PORT="$(Scripts/oauth-server.sh port)"
    export APPEX_OAUTH_PORT
    echo "bench.sh: using this checkout's OAuth server, already running on port $APPEX_OAUTH_PORT" >&2
  else
    trap 'Scripts/oauth-server.sh stop; rm -rf "$out"' EXIT
    APPEX_OAUTH_PORT="$(Scripts/oauth-server.sh start)"
    export APPEX_OAUTH_PORT
  fi
fi

# Figures whose baseline benchmark has another name; "NAME*N": N times that benchmark's figure
# (the figures at scale, against ten times the figure at a tenth of the scale, same run).
declare -A baseline_of=(
  [discovery.snapshot.10000.cold]="discovery.snapshot.1000.cold*10"
  [discovery.snapshot.10000.warm]="discovery.snapshot.1000.warm*10"
  [widget.host.100]="widget.timeline.first*100"
  [discovery.snapshot.1000.cold]=discovery.snapshot.1000.baseline
  [discovery.snapshot.1000.warm]=discovery.snapshot.1000.baseline
  [ipc.reply.64MiB.memfd]=ipc.reply.64MiB.baseline
  [aux.request.roundtrip]=defaults.notify
  [launch.first-reply.sandboxed]=launch.first-reply
  [launch.first-reply.enhanced]=launch.first-reply.sandboxed
  [launch.first-reply.sandboxed.lone]=launch.first-reply.lone
  [launch.first-reply.lone]=launch.first-reply.baseline
  [host.extensions.100.floor]=host.extensions.100.baseline
  [host.extensions.100.floor.unsandboxed]=host.extensions.100.baseline
  [host.extensions.100.floor.cpu]=host.extensions.100.cpu.baseline
  [keychain.read.brokered]=keychain.read
  [window.event.latency]=discovery.update-latency
)
# The benchmarks to run: the figures the filter selects, and their baselines.
bench_filter="$filter"
for name in "${!baseline_of[@]}"; do
  if [[ "$name" =~ $filter ]]; then bench_filter="$bench_filter|${baseline_of[$name]%\**}"; fi
done

# A figure NAME.p50 / NAME.p99 comes from benchmark NAME.
bench_filter="$(printf '%s' "$bench_filter" | sed -E 's/\\\.p(50|99)//g; s/\.p(50|99)//g')"
# package-benchmark names a benchmark that threw ("The following benchmarks failed") and still
# exits 0: its output is read, and such a run fails here, figures or smoke.
status=0
swift package --allow-writing-to-directory "$out" benchmark --benchmark-build-configuration "$configuration" \
  --filter "($bench_filter).*" --format histogramPercentiles --path "$out" --no-progress 2>&1 |
  tee "$out/benchmark.log" || status=$?
if [[ $status != 0 ]]; then
  # A crashed job's reason is far above the files written after it: repeat it last.
  echo "bench.sh: the benchmarks failed (exit $status); what they said of it:" >&2
  grep -E "Failed to run|Fatal error|Precondition failed|^error:|failed during runtime" "$out/benchmark.log" |
    awk '!seen[$0]++' | tail -20 >&2 || true
  exit "$status"
fi
if grep -q 'The following benchmarks failed' "$out/benchmark.log"; then
  echo "bench.sh: these benchmarks failed (each one's error is above):" >&2
  grep -E '^Benchmark .* failed with' "$out/benchmark.log" | sort -u >&2
  exit 1
fi

pairs=()
for name in "${!baseline_of[@]}"; do pairs+=("$name=${baseline_of[$name]}"); done
# Every figure is computed, in the smoke run too (its values mean nothing there, but a figure
# that cannot be computed, a baseline rounded to zero say, fails it as it would fail a real run).
figures=0
python3 - "$out" "$filter" "$smoke" "${pairs[@]}" >"$out/figures.txt" <<'PY' || figures=$?
import glob, os, re, sys
out, pattern, smoke = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
# Figures whose baseline benchmark has another name: bash's baseline_of, passed as NAME=BASELINE.
explicit = dict(pair.split("=", 1) for pair in sys.argv[4:])
to_ns = {"ns": 1, "us": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
p50 = {}  # benchmark name -> p50 in ns
p99 = {}
# Benchmarks whose figures are latency distributions: NAME.p50 and NAME.p99.
distributions = {"ipc.roundtrip.64B", "ipc.actor.roundtrip.64B", "ipc.roundtrip.64B.pool", "ipc.roundtrip.64B.pinned",
                 "ipc.roundtrip.64B.traced",
                 "defaults.notify"}
# A benchmark that records the custom metric "latency" (nanoseconds, one value per call) is
# read from it, one that records "rss" (bytes) or "cpu" (nanoseconds of CPU) likewise; the
# others from their wall clock (one value per sample).
# A benchmark that times its baseline in the same samples, alternating with its own runs (the
# product's figures: this VM's noise moves a figure by tens of percent between runs a minute
# apart), records ours in "latency" and the baseline in "pairedBaseline": the figure's baseline
# is then that, not a NAME.baseline benchmark.
# A benchmark that records custom metrics named "part…" (nanoseconds, aux.request.roundtrip's
# seal, write, wake, claim, answer and read back) gets a line "parts: NAME seal=… write=…",
# each the part's p50, in the order the benchmark declares them.
part_order = ["partSeal", "partWrite", "partWake", "partClaim", "partAnswer", "partReadBack"]
custom = ("latency", "rss", "cpu", "pairedBaseline") + tuple(part_order)
paths = glob.glob(out + "/*.wallClock.histogram.percentiles.tsv")
for metric in custom: paths += glob.glob(out + f"/*.{metric}.histogram.percentiles.tsv")
paths.sort(key=lambda path: not path.endswith(".wallClock.histogram.percentiles.tsv"))  # custom files last: they win
memory = set()  # benchmarks whose values are bytes
paired = {}  # benchmark name -> p50 of the baseline timed in its own samples
paired99 = {}  # and its p99
parts = {}  # benchmark name -> {part metric -> p50}
for path in paths:
    # <baseline>.<target>.<benchmark name>.<metric>.histogram.percentiles.tsv
    metric = next((m for m in custom if path.endswith(f".{m}.histogram.percentiles.tsv")), "wallClock")
    name = os.path.basename(path).split(".", 2)[2].rsplit(f".{metric}.histogram.percentiles.tsv", 1)[0]
    lines = open(path).read().splitlines()
    found = re.search(r"\(([^()]*)\)[\s*]*$", lines[0])
    if found is None and metric == "wallClock":
        sys.exit(f"bench.sh: no unit in the header {lines[0]!r} of {path}")
    unit = found.group(1) if found else ""  # a custom metric shown unscaled has no unit
    if metric in custom:
        # package-benchmark scales custom values for display: (K) is thousands of nanoseconds
        # (or bytes).
        scale = {"": 1, "#": 1, "K": 1e3, "M": 1e6, "G": 1e9}.get(unit.strip().rstrip("*").strip(), None)
    else:
        scale = to_ns.get(unit.strip().replace("μ", "u").rstrip("*").strip(), None)
    if scale is None:
        sys.exit(f"bench.sh: unknown unit {unit!r} in {path}")
    rows = dict(line.split("\t") for line in lines[1:])
    if metric in part_order:
        parts.setdefault(name, {})[metric] = float(rows["50"]) * scale
        continue
    if metric == "pairedBaseline":
        paired[name] = float(rows["50"]) * scale
        paired99[name] = float(rows["99"]) * scale
        continue
    p50[name] = float(rows["50"]) * scale
    if metric == "rss": memory.add(name)
    p99[name] = float(rows["99"]) * scale
def show_bytes(count):
    return f"{count / 2**20:.3g}MB"
def show(ns):
    for unit, factor in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= factor: return f"{ns / factor:.3g}{unit}"
    return f"{ns:.3g}ns"
if not p50:
    sys.exit("bench.sh: the benchmark run exported no wall-clock percentiles")
# Figures whose target is a difference from their baseline (docs/decisions/0154).
differences = {"widget.timeline.first", "widget.host.rss.20", "host.extensions.100.rss", "host.extensions.100.pss", "widget.recentcontacts.reload",
               "widget.recentcontacts.reload.cold", "launch.first-reply.sandboxed",
               "launch.first-reply.enhanced", "launch.first-reply.sandboxed.lone", "window.event.latency"}
# Figures whose target is a rate (their values are the time per call over all callers): a line
# "rate: NAME ours=…/s baseline=…/s ratio=…" follows, the ratio ours over the baseline's rate.
rates = {"ipc.concurrent.8"}
failed = []  # figures that cannot be computed, with why
def figure(name, ours, base, unit=show):
    if base is None:
        print(f"figure: {name} ours={unit(ours)} baseline=missing ratio=n/a")
    elif base <= 0 or ours <= 0:
        # A value of 0 is one rounded to zero in the benchmark's time units: a ratio of it means
        # nothing (and divides by zero).
        zero = "its baseline" if base <= 0 else "ours"
        failed.append(f"{name}: {zero} is 0 in the benchmark's units, rounded from less than one; measure it in finer timeUnits")
    else:
        print(f"figure: {name} ours={unit(ours)} baseline={unit(base)} ratio={ours / base:.2f}")
        if name in differences:
            sign = "+" if ours >= base else "-"
            print(f"difference: {name} ours-baseline={sign}{unit(abs(ours - base))}")
        if name in rates:
            print(f"rate: {name} ours={1e9 / ours:,.0f}/s baseline={1e9 / base:,.0f}/s ratio={base / ours:.2f}")
def scaled(table, name):
    """The value of baseline `name` in `table`; "NAME*N" is N times NAME's (None if missing)."""
    base, _, factor = name.partition("*")
    value = table.get(base)
    return None if value is None else value * (float(factor) if factor else 1)
for name in sorted(p50):
    if name.endswith(".baseline"): continue
    base = explicit.get(name, name + ".baseline")
    if name in distributions:
        for suffix, table, pairs in ((".p50", p50, paired), (".p99", p99, paired99)):
            if re.search(pattern, name + suffix):
                figure(name + suffix, table[name], pairs.get(name, scaled(table, base)))
    elif re.search(pattern, name):
        figure(name, p50[name], paired.get(name, scaled(p50, base)), show_bytes if name in memory else show)
    if name in parts and re.search(pattern, name):
        shown = " ".join(f"{metric[4:].lower()}={show(parts[name][metric])}"
                         for metric in part_order if metric in parts[name])
        print(f"parts: {name} {shown}")
for why in failed:
    print(f"bench.sh: cannot compute the figure {why}", file=sys.stderr)
sys.exit(1 if failed else 0)
PY
if [[ $smoke == 1 ]]; then
  # One file per benchmark and metric: <baseline>.<target>.<benchmark name>.<metric>.histogram…
  ran="$(find "$out" -name '*.histogram.percentiles.tsv' -printf '%f\n' | sed -E 's/^[^.]+\.[^.]+\.//; s/\.[^.]+\.histogram\.percentiles\.tsv$//' | sort -u)"
  count="$(printf '%s\n' "$ran" | grep -c .)"
  printf 'bench.sh: smoke: ran %s\n' $ran
  echo "bench.sh: smoke: $count benchmarks ran once each, and $(grep -c '^figure:' "$out/figures.txt") figures were computed from them (they mean nothing), in $((SECONDS - script_started)) s"
else
  # Where and when: a table of figures names its run (docs/benchmark-runs/ keeps the output).
  cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
  memory="$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")"
  git diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
  echo "run: $(date -u '+%Y-%m-%d %H:%M') UTC, $commit, $(nproc) cores ($cpu), $memory, $(uname -sr), filter '$filter'"
  cat "$out/figures.txt"
fi
if [[ $figures != 0 ]]; then
  echo "bench.sh: some figures could not be computed (above)" >&2
  exit 1
fi
echo "bench.sh: done in $((SECONDS - script_started)) s" >&2
