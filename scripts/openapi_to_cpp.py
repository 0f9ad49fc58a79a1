#!/usr/bin/env python3
"""Converts docs/openapi.yaml to a C++ file that embeds it as compact JSON.

Run by the build (CMakeLists.txt), so the server needs no YAML parser at run time and
serves at /api/v1/openapi.json exactly the document in the repository. Needs python3-yaml.
Usage: openapi_to_cpp.py IN.yaml OUT.cpp
"""
import json
import sys

import yaml


def main() -> int:
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        document = yaml.safe_load(f)
    if not isinstance(document, dict) or not str(document.get("openapi", "")).startswith("3.1"):
        print(f"{source}: not an OpenAPI 3.1 document", file=sys.stderr)
        return 1
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    delimiter = "openapi"
    if f"){delimiter}\"" in text:
        print(f"{source}: contains the raw string delimiter", file=sys.stderr)
        return 1
    with open(target, "w", encoding="utf-8") as f:
        f.write("// Generated from docs/openapi.yaml by scripts/openapi_to_cpp.py; do not edit.\n")
        f.write('#include "http/openapi_document.h"\n\n')
        f.write("namespace licensed {\n\n")
        f.write("std::string_view openapi_json() {\n")
        f.write(f'  static constexpr std::string_view kDocument = R"{delimiter}({text}){delimiter}";\n')
        f.write("  return kDocument;\n}\n\n}  // namespace licensed\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
