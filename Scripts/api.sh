#!/usr/bin/env bash
# The public API, as a baseline in the repository: one file per module in api/, a sorted list
# of every public declaration (with its full signature) and every public conformance, read from
# the symbol graphs that Scripts/docs.sh has just extracted (so it costs no build of its own).
#
#   Scripts/api.sh            compares the API with api/ and fails, with the difference, when
#                             they differ (an unintended change fails the tests), or when it
#                             cannot compare (another toolchain, no symbol graphs), saying why.
#   Scripts/api.sh --update   writes api/ from the API: an intended change updates the baseline
#                             in the same commit.
#
# It also fails when a wire type (the framed channel, the connection, the handshake) is public:
# they are `@_spi(Wire)`, for Appex's own modules, fuzzers and benchmarks only.
set -euo pipefail
cd "$(dirname "$0")/.."

update=0
[ "${1:-}" = "--update" ] && update=1
products=$(sed -n 's/^ *\.library(name: "\(Appex[A-Za-z]*\)".*/\1/p' Package.swift)
# The symbol graphs are under extracted-symbols/<this package's identity> (its folder's name, in
# lower case): take the newest folder that holds AppexVocabulary's.
graphs=$(find .build -mindepth 4 -maxdepth 4 -type d -path '*/extracted-symbols/*/AppexVocabulary' -printf '%T@ %h\n' 2>/dev/null |
  sort -rn | head -1 | cut -d' ' -f2-)
if [ -z "$graphs" ]; then
  echo "api.sh: no symbol graphs under .build/*/extracted-symbols; run Scripts/docs.sh first" >&2
  exit 1
fi
current="$(mktemp -d)"
trap 'rm -rf "$current"' EXIT
/usr/bin/env python3 - "$graphs" "$current" AppexVocabulary ActivityKit $products <<'PY'
import json, os, sys
graphs, out, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
wire = ("FrameChannel", "IPCConnection", "Handshake", "HostHello", "ExtensionHello")
exposed = []
for module in modules:
    folder = os.path.join(graphs, module)
    if not os.path.isdir(folder):
        sys.exit(f"api.sh: no symbol graph for {module} in {graphs}")
    lines = set()
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".symbols.json"):
            continue
        with open(os.path.join(folder, name)) as file:
            graph = json.load(file)
        public = {}
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open") or symbol.get("spi"):
                continue
            # A protocol's default implementations and inherited members, which the graph
            # repeats for every conforming type: listed once, where they are declared.
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            path = ".".join(symbol["pathComponents"])
            declaration = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
            declaration = " ".join(declaration.split())
            public[symbol["identifier"]["precise"]] = path
            lines.add(f"{symbol['kind']['identifier'].removeprefix('swift.')} {path}: {declaration}")
            if any(word in path.split(".") or path == "Frame" for word in wire):
                exposed.append(f"{module}: {path}")
        for relation in graph.get("relationships", []):
            if relation["kind"] == "conformsTo" and relation["source"] in public:
                target = relation.get("targetFallback") or relation["target"]
                lines.add(f"conformance {public[relation['source']]}: {target.split('.')[-1] if '.' in target else target}")
    with open(os.path.join(out, f"{module}.txt"), "w") as file:
        file.write("".join(line + "\n" for line in sorted(lines)))
if exposed:
    sys.exit("api.sh: wire types are public (they must be @_spi(Wire)):\n  " + "\n  ".join(exposed))
PY
# The declarations are spelled as this compiler prints them (and it adds conformances such as
# SendableMetatype that older ones do not): the baseline names the toolchain it was made with, and
# another toolchain cannot compare with it, which fails: a check that passes without comparing
# would hide every change.
toolchain=$(swift --version 2>/dev/null | head -1)
if [ "$update" = 1 ]; then
  rm -rf api
  mkdir -p api
  cp "$current"/*.txt api/
  echo "$toolchain" > api/TOOLCHAIN
  echo "api.sh: wrote the public API of $(ls api/*.txt | wc -l) modules to api/ ($(cat api/*.txt | wc -l) lines)"
  exit 0
fi
cp api/TOOLCHAIN "$current/TOOLCHAIN" 2>/dev/null || true
if [ "$(cat api/TOOLCHAIN 2>/dev/null)" != "$toolchain" ]; then
  echo "api.sh: cannot compare: api/ was made with \"$(cat api/TOOLCHAIN 2>/dev/null)\" and this is \"$toolchain\", which spells declarations its own way; use the toolchain api/TOOLCHAIN names, or, moving the project to this one, run Scripts/api.sh --update and review the difference" >&2
  exit 1
fi
if ! diff -ru api "$current" >&2; then
  echo "api.sh: the public API differs from api/ (above: - the baseline, + now). If the change is intended, run Scripts/api.sh --update and commit api/ with it." >&2
  exit 1
fi
echo "api.sh: the public API of $(ls api/*.txt | wc -l) modules matches api/"
