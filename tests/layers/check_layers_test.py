#!/usr/bin/env python3
"""scripts/check_layers.py catches what it is for: an include upwards fails the check, an
include downwards or within a layer passes, and the SDK may not reach past its files."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_layers.py"
CMAKE = """
licensed_layer(core LIBS Boost::json licensed_signing)
licensed_layer(auth USES core)
licensed_layer(store USES core
               LIBS SQLite::SQLite3)
licensed_layer(http USES core store EXTRA_SOURCES x.cpp)
"""


def tree(files):
    root = pathlib.Path(tempfile.mkdtemp())
    (root / "CMakeLists.txt").write_text(CMAKE)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def check(root):
    return subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)


class CheckLayers(unittest.TestCase):
    def test_the_repository_passes(self):
        result = check(ROOT)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_an_include_downwards_or_within_a_layer_passes(self):
        root = tree({"src/http/a.cpp": '#include "store/s.h"\n#include "core/c.h"\n',
                     "src/store/s.h": '#include "store/t.h"\n'})
        self.assertEqual(check(root).returncode, 0)

    def test_core_including_store_fails_and_names_the_line(self):
        root = tree({"src/core/ops.h": '#pragma once\n#include "store/store_tx.h"\n'})
        result = check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/core/ops.h:2: layer core includes store/", result.stdout)

    def test_an_include_two_layers_up_fails(self):
        root = tree({"src/core/x.cpp": '#include "http/server.h"\n'})
        self.assertEqual(check(root).returncode, 1)

    def test_a_unit_test_may_include_any_layer(self):
        root = tree({"src/core/x_test.cpp": '#include "http/server.h"\n'})
        self.assertEqual(check(root).returncode, 0)

    def test_the_sdk_may_not_include_what_it_does_not_compile(self):
        root = tree({"client/src/a.cpp": '#include "core/hex.h"\n#include "store/store_tx.h"\n'})
        result = check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("client/src/a.cpp:2", result.stdout)
        self.assertNotIn("client/src/a.cpp:1", result.stdout)

    def test_a_layer_linking_licensed_signing_may_include_its_headers_only(self):
        root = tree({"src/core/x.cpp": '#include "auth/offline_file.h"\n#include "auth/key_ring.h"\n'})
        result = check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("src/core/x.cpp:2: layer core includes auth/", result.stdout)
        self.assertNotIn("src/core/x.cpp:1", result.stdout)


if __name__ == "__main__":
    unittest.main()
