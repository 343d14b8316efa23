#!/usr/bin/env bash
# Writes the README's code samples (README.md and Examples/README.md) to Tests/Samples/, one
# folder per sample: its source (main.swift, or Sample.swift for one marked @main) and
# `products`, the products it depends on, one a line. Package.swift makes each folder an
# executable target, `Sample` and the folder's name, compiled with the rest of the package in one
# graph; ReadmeSampleTests checks that the folders are the READMEs' blocks, byte for byte.
#
# A sample is a ```swift block right after an HTML comment `<!-- sample: PRODUCT[, PRODUCT] -->`.
# Run this after changing a sample; it ends with what it wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
/usr/bin/python3 - <<'PY'
import os, re, shutil

def samples(readme):
    lines = open(readme, encoding="utf-8").read().split("\n")
    found, index = [], 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("<!-- sample:") and line.endswith("-->") and index + 1 < len(lines) \
                and lines[index + 1].startswith("```swift"):
            products = [p.strip() for p in line[len("<!-- sample:"):-len("-->")].split(",")]
            end = index + 2
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            found.append((products, "\n".join(lines[index + 2:end])))
            index = end
        index += 1
    return found

folder = "Tests/Samples"
shutil.rmtree(folder, ignore_errors=True)
written = 0
for document, readme in (("Readme", "README.md"), ("Examples", "Examples/README.md")):
    for number, (products, code) in enumerate(samples(readme), start=1):
        target = os.path.join(folder, f"{document}{number}")
        os.makedirs(target)
        source = "Sample.swift" if "@main" in code else "main.swift"
        with open(os.path.join(target, source), "w", encoding="utf-8") as out:
            out.write(code)
        with open(os.path.join(target, "products"), "w", encoding="utf-8") as out:
            out.write("\n".join(products) + "\n")
        written += 1
print(f"samples.sh: wrote {written} samples to {folder}/")
PY
echo "samples.sh: done in $((SECONDS - started)) s"
