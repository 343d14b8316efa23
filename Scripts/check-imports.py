#!/usr/bin/env python3
"""Every module of this package that a target's sources import is one of the target's declared
dependencies: no import that works only because another dependency happens to bring the module
along (SwiftPM's --explicit-target-dependency-import-check accepts those).

And the modules every extension links (EXTENSION_RUNTIME) import Foundation only as the fallback
of `#if canImport(FoundationEssentials)`: Foundation in a statically linked extension brings
CoreFoundation along (a 28 MB extension became 77 MB and kept 3 MB more resident, decision 0168).

Usage: swift package describe --type json | Scripts/check-imports.py
Prints each undeclared import (file:line, the target, the module) and exits 1 when there is one."""
import json, os, re, sys

description = json.load(sys.stdin)
targets = {target["c99name"]: target for target in description["targets"]}
names = {target["c99name"]: target["name"] for target in description["targets"]}
IMPORT = re.compile(r'^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?'
                    r'import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)')
EXTENSION_RUNTIME = {"AppexSystem", "AppexIPC", "AppexExtension", "AppexVocabulary", "AppexCoding"}
problems = []
for module, target in sorted(targets.items()):
    declared = {dependency.replace("-", "_") for dependency in target.get("target_dependencies", [])}
    folder = target["path"] if os.path.isabs(target["path"]) else os.path.join(description["path"], target["path"])
    for source in target.get("sources", []):
        if not source.endswith(".swift"):
            continue
        path = os.path.join(folder, source)
        with open(path, encoding="utf-8") as file:
            quoted = False  # inside a multi-line string literal (a template's code is not an import)
            # The open #if blocks, each [whether it tests canImport(FoundationEssentials), whether
            # its #else branch has begun]: a Foundation import is its fallback inside such an #else.
            blocks = []
            for number, line in enumerate(file, 1):
                directive = line.strip()
                if directive.startswith("#if"):
                    blocks.append(["canImport(FoundationEssentials)" in directive, False])
                elif directive.startswith(("#else", "#elseif")) and blocks:
                    blocks[-1][1] = True
                elif directive.startswith("#endif") and blocks:
                    blocks.pop()
                fallback = any(tests and branch for tests, branch in blocks)
                match = None if quoted else IMPORT.match(line)
                if line.count('"""') % 2 == 1:
                    quoted = not quoted
                if not match:
                    continue
                imported = match.group(1)
                if imported == "Foundation" and names[module] in EXTENSION_RUNTIME and not fallback:
                    problems.append(f"{os.path.relpath(path, description['path'])}:{number}: {names[module]}, "
                                    "which every extension links, imports Foundation: import FoundationEssentials "
                                    "(#if canImport(FoundationEssentials)), or do without")
                if imported in targets and imported != module and imported not in declared:
                    problems.append(f"{os.path.relpath(path, description['path'])}:{number}: {names[module]} imports "
                                    f"{names[imported]}, which its dependencies in Package.swift do not list")
if problems:
    print("\n".join(problems))
    sys.exit(1)
