#!/usr/bin/env bash
# Builds the DocC documentation of every public library module with swift-docc-plugin, warnings
# as errors: a broken ``Symbol`` link, an undocumented parameter or a bad article fails the run.
#
# The modules are the Appex… library products of Package.swift (not the product's ContactsKit),
# plus two without a product: AppexVocabulary, the home of the types every module re-exports
# (AppexError, AppExtensionPoint, ...), which the others link to as ``/AppexVocabulary/AppexError``,
# and ActivityKit, which AppexWidgetKit re-exports. One combined archive is built, so a module's
# documentation may link to the modules it depends on (``/AppexCore/AppexBundle``). Each module
# needs a catalog, Sources/<Module>/<Module>.docc/<Module>.md; a product without one fails here.
#
# The build shares the tests' scratch path (.build): symbol graphs come from a debug build of the
# package, the same one `swift build --build-tests` then completes (a scratch path of its own was
# a second full debug build on every CI run, several minutes of both cores).
set -euo pipefail
cd "$(dirname "$0")/.."

products=$(sed -n 's/^ *\.library(name: "\(Appex[A-Za-z]*\)".*/\1/p' Package.swift)
if [ -z "$products" ]; then
  echo "docs.sh: found no library product in Package.swift" >&2
  exit 1
fi
targets=(AppexVocabulary ActivityKit $products)
arguments=()
for target in "${targets[@]}"; do
  if [ ! -f "Sources/$target/$target.docc/$target.md" ]; then
    echo "docs.sh: $target has no documentation catalog: add Sources/$target/$target.docc/$target.md (a landing page with its Topics)" >&2
    exit 1
  fi
  arguments+=(--target "$target")
done

started=$(date +%s)
swift package generate-documentation "${arguments[@]}" \
  --enable-experimental-combined-documentation --warnings-as-errors
archive=.build/plugins/Swift-DocC/outputs/Appex.doccarchive
echo "docs.sh: documentation of ${#targets[@]} modules, no warnings, in $(($(date +%s) - started)) s: $archive"

