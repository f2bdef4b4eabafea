#!/usr/bin/env python3
"""Checks the thread cache's own dependency graph (docs/thread-cache.md, "The library's own
dependency graph").

The cache (src/preload/cache) has a base every module may use: the real glibc functions,
readiness and defaults (base.c), the one-pass symbol lookup (next_symbols.c), the options
(options.c) and the helpers shared with the pin library (src/preload/common). Start-up
(startup.c) is the top: it calls every module. The rule: a base file calls (or takes the address
of) only functions defined in base files, so no file both provides the base and calls the
modules. Also: every C file of the cache is named in the doc's graph section, so the drawing
cannot silently lose a file.

Functions are found in the sources, not the objects (CI's cheap stage builds nothing): a
definition is `tm__name(...) {` at brace depth 0 (or a TM_NEXT_SLOTS(list, tm__name) line),
a use is `tm__name` inside a function body. Comments and strings are ignored.

Usage: scripts/check-cache-graph.py [--graph | --selftest] [--root DIR]
  --graph     print, per file, the files whose functions it calls (what the doc draws)
  --selftest  plant violations in scratch copies (a base file calling start-up, a module
              called from the base, a file missing from the doc) and fail unless the check
              catches each one
  --root      the repository to check (default: this script's)
Exit status: 0 when the rules hold, 1 otherwise (each violation on stderr).
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

BASE = {"base.c", "next_symbols.c", "options.c"}  # plus every file of src/preload/common
TOP = {"startup.c"}
DOC = "docs/thread-cache.md"
DOC_SECTION = "## The library's own dependency graph"


def strip(text):
    """The text with comments, string and character literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


IDENT = re.compile(r"\btm__\w+")


def scan(path):
    """(functions defined, tm__ names used inside bodies) of one C file."""
    text = strip(path.read_text())
    # Preprocessor lines: macros that define functions are read by name below.
    defined = set(re.findall(r"TM_NEXT_SLOTS\(\s*\w+\s*,\s*(tm__\w+)\s*\)", text))
    lines = [ln if not ln.lstrip().startswith("#") else "" for ln in text.split("\n")]
    body = "\n".join(lines)
    used, depth, i = set(), 0, 0
    body = re.sub(r"\b(struct|union|enum)\s+tm__\w+", "", body)  # tags are no functions
    for m in re.finditer(r"[{}]|\btm__\w+", body):
        tok = m.group(0)
        if tok == "{":
            if depth == 0:
                head = body[i:m.start()]
                # The last `name(` at depth 0 before a `)`-ended head is the function defined.
                if re.search(r"\)\s*(__attribute__\s*\(\(.*\)\)\s*)?$", head, re.S):
                    names = re.findall(r"\b(tm__\w+)\s*\(", head)
                    if names:
                        defined.add(names[-1])
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                i = m.end()
        elif depth > 0:
            used.add(tok)
    return defined, used


def load(root):
    cache = root / "src/preload/cache"
    common = root / "src/preload/common"
    files = {}
    for p in sorted(cache.glob("*.c")):
        files[p.name] = scan(p)
    for p in sorted(common.glob("*.c")):
        files["../common/" + p.name] = scan(p)
    return files


def is_base(name):
    return name in BASE or name.startswith("../common/")


def selftest(root):
    """0 when the check passes on ROOT and fails on each planted violation."""
    plants = [
        ("base calls the top", "src/preload/cache/base.c",
         lambda t: t + "\nvoid tm__planted(void) { tm__init(); }\n"),
        ("base calls a module", "src/preload/cache/next_symbols.c",
         lambda t: t + "\nvoid tm__planted(void) { tm__records_init(); }\n"),
        ("common calls a module", "src/preload/common/tm_line.c",
         lambda t: t + "\nvoid tm__planted(void) { tm__stats_init(); }\n"),
        ("a file missing from the doc", "docs/thread-cache.md",
         lambda t: t.replace("unwinder.c", "unwinder")),
    ]
    me = pathlib.Path(__file__).resolve()
    if subprocess.run([sys.executable, str(me), "--root", str(root)]).returncode != 0:
        print("check-cache-graph selftest: the check fails on the tree itself", file=sys.stderr)
        return 1
    status = 0
    for what, path, plant in plants:
        with tempfile.TemporaryDirectory() as scratch:
            copy = pathlib.Path(scratch)
            shutil.copytree(root / "src/preload", copy / "src/preload")
            (copy / "docs").mkdir()
            shutil.copy(root / DOC, copy / DOC)
            target = copy / path
            target.write_text(plant(target.read_text()))
            r = subprocess.run([sys.executable, str(me), "--root", str(copy)],
                               capture_output=True, text=True)
            if r.returncode == 0:
                print(f"check-cache-graph selftest: not caught: {what}", file=sys.stderr)
                status = 1
            else:
                print(f"ok caught: {what}")
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent))
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    if args.selftest:
        return selftest(root)
    files = load(root)
    owner = {}
    for name, (defined, _) in files.items():
        for fn in defined:
            owner.setdefault(fn, name)
    edges = {}
    for name, (defined, used) in files.items():
        edges[name] = sorted({owner[u] for u in used if u in owner and owner[u] != name})
    if args.graph:
        for name in sorted(edges, key=lambda n: (not is_base(n), n not in TOP, n)):
            kind = "base" if is_base(name) else ("top" if name in TOP else "module")
            print(f"{name} ({kind}) -> {' '.join(edges[name]) or '-'}")
        return 0
    status = 0
    for name in sorted(files):
        if not is_base(name):
            continue
        for fn in sorted(files[name][1]):
            where = owner.get(fn)
            if where is not None and where != name and not is_base(where):
                kind = "the top" if where in TOP else "a module"
                print(f"check-cache-graph: base file {name} uses {fn}, defined in {where} "
                      f"({kind}): the base must call nothing above it", file=sys.stderr)
                status = 1
    missing = [n for n in TOP | BASE if n not in files]
    for n in missing:
        print(f"check-cache-graph: {n} is named by this check but does not exist", file=sys.stderr)
        status = 1
    doc = (root / DOC).read_text()
    if DOC_SECTION not in doc:
        print(f"check-cache-graph: {DOC} has no section '{DOC_SECTION}'", file=sys.stderr)
        return 1
    section = doc.split(DOC_SECTION, 1)[1].split("\n## ", 1)[0]
    for name in sorted(files):
        base_name = name.split("/")[-1]
        if base_name not in section:
            print(f"check-cache-graph: {name} is missing from {DOC}'s dependency graph",
                  file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
