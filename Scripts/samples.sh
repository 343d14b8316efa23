#!/usr/bin/env bash
# Writes the documents' code samples (README.md, Examples/README.md, docs/*.md and the DocC
# articles, Sources/*/*.docc/*.md: the list ReadmeSampleTests reads too) to Tests/Samples/, one
# folder per sample, named by its document (Readme, Examples, DocsCli, AppexWidgetKitWritingAWidget)
# and its number there: its source (main.swift, or Sample.swift for one marked @main) and
# `products`, the products it depends on, one a line. Package.swift makes each folder an
# executable target, `Sample` and the folder's name, compiled with the rest of the package in one
# graph; ReadmeSampleTests checks that the folders are the documents' blocks, byte for byte.
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

def markdown(folder):
    return [f"{folder}/{name}" for name in sorted(os.listdir(folder)) if name.endswith(".md")] if os.path.isdir(folder) else []

def prefix(document):
    if document == "README.md": return "Readme"
    if document == "Examples/README.md": return "Examples"
    parts = document.split("/")
    words = [word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", parts[-1][:-len(".md")]) if word]
    return ("Docs" if parts[0] == "docs" else parts[1]) + "".join(words)

documents = ["README.md", "Examples/README.md"] + markdown("docs")
for module in sorted(os.listdir("Sources")):
    documents += markdown(f"Sources/{module}/{module}.docc")

folder = "Tests/Samples"
shutil.rmtree(folder, ignore_errors=True)
written = 0
for readme in documents:
    document = prefix(readme)
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
