#!/usr/bin/env python3
"""Checks that the code names in the newcomer's documents still exist.

docs/architecture.md and README's "Where things are" table tell a newcomer where a
request is authenticated, where the cap is enforced and where an error code is chosen,
by file and function. A rename that forgets them leaves a map to places that are gone.
This reads every `backticked` name there and fails, listing them, on:
- a path (`src/http/route.h`, `admin/admin_operations.h`, `client/src/`, `armour.*`)
  that names no file or directory of the repository (relative to its root or to src/;
  a bare file name or `stem.*` anywhere under src/, client/, tests/ or scripts/);
- a qualified C++ name (`LicenseHandler::bound_to`) whose parts do not both appear in a
  source file under src/, client/ or the CMake files, or, in the architecture document, a snake_case
  function name (`run_operation`, `check_signature()`) that appears in none.
Other backticked text (flags, headers, SQL, commands) is not checked.

Usage: check_doc_names.py [REPO_ROOT] [--self-test]
"""
import pathlib
import re
import sys

# (document, the heading of the one section to read, or None for the whole document)
DOCS = [("docs/architecture.md", None), ("README.md", "## Where things are")]
TOP_DIRS = {"src", "client", "tests", "scripts", "docs", "fuzz", "bench", "cmake", "admin",
            "auth", "core", "config", "dashboard", "http", "observability", "outgoing",
            "ratelimit", "redis", "store", "sqlite", "postgres", "webhooks"}
SOURCE_DIRS = ["src", "client", "cmake"]
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".c", ".cmake", ".py", ".sh", ".js", ".txt"}
# Backticked text that looks like a file name but names tests.
NOT_FILES = {"scale.*"}
PATH_RE = re.compile(r"^[A-Za-z0-9_.*/-]+$")
FUNCTION_RE = re.compile(r"^([a-z][a-z0-9]*_[a-z0-9_]+)(\(\))?$")
QUALIFIED_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_~][A-Za-z0-9_]*)(\(\))?$")
FILE_EXT_RE = re.compile(r"\.(h|hpp|cpp|c|md|py|sh|js|mjs|html|css|json|yaml|toml|txt|cmake|\*)$")


def backticked(text):
    return re.findall(r"`([^`\n]+)`", text)


def is_path(token):
    """A repository path (its first part a top directory or a layer) or a file name."""
    if token in NOT_FILES or not PATH_RE.match(token) or token.startswith(("-", ".", "/", "*")):
        return False
    if "//" in token:
        return False
    if "/" in token:
        return token.split("/", 1)[0] in TOP_DIRS
    stem = token.split(".", 1)[0]
    return FILE_EXT_RE.search(token) is not None and stem.islower()


class Repo:
    def __init__(self, root):
        self.root = root
        self.files = []
        for d in SOURCE_DIRS:
            base = root / d
            if base.is_dir():
                self.files += [p for p in base.rglob("*") if p.is_file()
                               and "node_modules" not in p.parts]
        self.files.append(root / "CMakeLists.txt")
        # Bare file names may also be of tests and scripts; their text names no code.
        self.test_files = [p for d in ("tests", "scripts", "fuzz", "bench") if (root / d).is_dir()
                           for p in (root / d).rglob("*")
                           if p.is_file() and "node_modules" not in p.parts]
        self._text = None

    def source_text(self):
        if self._text is None:
            parts = []
            for p in self.files:
                if p.suffix in SOURCE_SUFFIXES:
                    try:
                        parts.append(p.read_text(errors="replace"))
                    except OSError:
                        pass
            self._text = "\n".join(parts)
        return self._text

    def bases(self):
        return (self.root, self.root / "src", self.root / "src" / "store", self.root / "docs")

    def path_exists(self, token):
        token = token.rstrip("/")
        if "*" in token:
            matches = [m for base in self.bases() for m in base.glob(token)]
            if matches:
                return True
            name = token.rsplit("/", 1)[-1]
            return any(p.match(name) for p in self.files)
        for base in self.bases():
            if (base / token).exists():
                return True
        if "/" not in token:
            return any(p.name == token for p in self.files + self.test_files) or (
                self.root / token).exists()
        return False

    def word_exists(self, word):
        return re.search(r"\b" + re.escape(word) + r"\b", self.source_text()) is not None

    def names_exist(self, klass, member):
        text = self.source_text()
        return (re.search(r"\b" + re.escape(klass) + r"\b", text) is not None
                and re.search(r"\b" + re.escape(member) + r"\b", text) is not None)


def section(text, heading):
    """The lines from `heading` to the next heading of its level (all when None)."""
    if heading is None:
        return text
    level = heading.split(" ", 1)[0] + " "
    lines = text.splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(level)),
               len(lines))
    return "\n".join(lines[start:end])


def architecture(doc_name):
    """Snake-case names are functions in the architecture document; elsewhere settings."""
    return doc_name == "docs/architecture.md"


def problems_in(doc_name, text, repo):
    found = []
    for token in backticked(text):
        token = token.strip()
        q = QUALIFIED_RE.match(token)
        if q:
            if not repo.names_exist(q.group(1), q.group(2)):
                found.append(f"{doc_name}: `{token}` names no class and member in src/ or client/")
        elif FUNCTION_RE.match(token) and architecture(doc_name):
            if not repo.word_exists(FUNCTION_RE.match(token).group(1)):
                found.append(f"{doc_name}: `{token}` names nothing in src/ or client/")
        elif is_path(token):
            if not repo.path_exists(token):
                found.append(f"{doc_name}: `{token}` names no file of the repository")
    return found


def self_test(repo):
    text = ("`src/http/route.h` `src/no/such/file.cpp` `LicenseHandler::bound_to` "
            "`NoSuchClass::no_such_member` `--listen` `POST /api/v1/license/activate` "
            "`run_operation` `no_such_function()`")
    found = problems_in("docs/architecture.md", text, repo)
    expected = {"`src/no/such/file.cpp`", "`NoSuchClass::no_such_member`",
                "`no_such_function()`"}
    got = {f.split(": ", 1)[1].split(" names")[0] for f in found}
    if got != expected:
        print(f"self-test: expected {sorted(expected)}, found {sorted(got)}")
        return 1
    print("self-test: a missing path and a missing member are found; flags and paths of "
          "URLs are not checked")
    return 0


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    repo = Repo(root)
    if "--self-test" in argv:
        return self_test(repo)
    problems = []
    for doc, heading in DOCS:
        problems += problems_in(doc, section((root / doc).read_text(), heading), repo)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} name(s) in the documents no longer exist: update the documents")
        return 1
    print(f"every file and qualified name in {', '.join(d for d, _ in DOCS)} exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
