#!/usr/bin/env python3
"""Fails when a layer of src/ includes a layer it may not use.

The layers and what each may use are read from CMakeLists.txt, from the
`licensed_layer(<layer> USES <layers>...)` calls that also link them, so the build and
this check share one table. A layer may include its own headers and those of the layers
its USES names; unit tests (*_test.cpp) may include anything. A layer that links
licensed_signing (LIBS) may include that library's headers (auth/armour.h,
auth/offline_file.h, ...: the code it is built of, not the auth layer). The SDK (client/) may
use only the header-only parts of core and the signing files it compiles (licensed_signing).

Usage: check_layers.py [repo root]; exit 0 when clean, 1 with one line per violation.
"""
import pathlib
import re
import sys

LAYER_CALL = re.compile(r"licensed_layer\((\w+)([^)]*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)
KEYWORDS = {"USES", "LIBS", "EXTRA_SOURCES"}
# What the SDK compiles of src/: cmake/LicensedSigning.cmake's LICENSED_SIGNING_SOURCES,
# their headers (the crypto seam among them), header-only helpers of core, and
# core/timestamp (compiled into licensed_signing).
SIGNING_HEADERS = re.compile(
    r"^auth/(armour|base64|crypto_primitives|lease_file|offline_file|request_signature"
    r"|response_signature"
    r"|response_tree)\.h$")
CLIENT_ALLOWED = re.compile(
    SIGNING_HEADERS.pattern[:-1] + r"|^core/(clock|hex|mutex|text|thread_annotations|timestamp)\.h$")


def read_layers(cmake_text):
    """{layer: set of layers it may use}, from the licensed_layer() calls; a layer that links
    licensed_signing also gets the pseudo-layer "licensed_signing"."""
    layers = {}
    for name, args in LAYER_CALL.findall(cmake_text):
        uses, section = set(), None
        for word in args.split():
            if word in KEYWORDS:
                section = word
            elif section == "USES":
                uses.add(word)
            elif section == "LIBS" and word == "licensed_signing":
                uses.add(word)
        layers[name] = uses
    return layers


def violations(root):
    root = pathlib.Path(root)
    layers = read_layers((root / "CMakeLists.txt").read_text())
    if not layers:
        return ["CMakeLists.txt: no licensed_layer() calls found"]
    found = []
    for layer, uses in sorted(layers.items()):
        for unknown in sorted(uses - layers.keys() - {"licensed_signing"}):
            found.append(f"CMakeLists.txt: layer {layer} uses unknown layer {unknown}")
        for path in sorted((root / "src" / layer).rglob("*")):
            if path.suffix not in (".h", ".cpp") or path.name.endswith("_test.cpp"):
                continue
            for line_no, target, rest in includes_with_path(path):
                if "licensed_signing" in uses and SIGNING_HEADERS.match(f"{target}/{rest}"):
                    continue
                if target in layers and target != layer and target not in uses:
                    found.append(f"{path.relative_to(root)}:{line_no}: layer {layer} "
                                 f"includes {target}/, which it may not use")
    for path in sorted((root / "client").rglob("*")):
        if path.suffix not in (".h", ".cpp") or path.name.endswith("_test.cpp"):
            continue
        if "tests" in path.relative_to(root).parts:
            continue
        for line_no, target, rest in includes_with_path(path):
            header = f"{target}/{rest}"
            if target in layers and not CLIENT_ALLOWED.match(header):
                found.append(f"{path.relative_to(root)}:{line_no}: the SDK includes "
                             f"{header}, which it does not compile")
    return found


def includes_with_path(path):
    text = path.read_text(errors="replace")
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) across layers that CMakeLists.txt does not allow "
              "(docs/architecture.md §1)")
        return 1
    print("layers: every include goes downwards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
