#!/usr/bin/env python3
"""Functions longer than a limit, and a check that no new one appears.

A function is a definition that starts at column 0 (the house style: namespaces are not
indented) with a name and "(" and ends at the first "}" at column 0 after its "{"; its length
is the lines from its first line to that "}". Member functions defined inside a class body are
counted with nothing (they are short by rule). Files: src/ and include/ (.c .h .cpp .hpp).

  scripts/function-lengths.py [--limit N] [--root DIR]
      lists every function over N lines (default 80), longest first: LINES PATH NAME
  scripts/function-lengths.py --check [--root DIR]
      fails when a function over 80 lines is not in scripts/function-lengths-allowed.txt, when
      an allowed one grew past its recorded length, or when an allowed one is now 80 lines or
      less or gone (then remove its line: the list only shrinks). CI runs this.
  scripts/function-lengths.py --selftest
      plants a long function and a grown one in a scratch copy; the check must fail on each.
"""
import os
import re
import shutil
import sys
import tempfile

LIMIT = 80
ALLOWED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "function-lengths-allowed.txt")
NOT_A_FUNCTION = re.compile(
    r"^(#|//|/\*|\*|}|namespace\b|class\b|struct\b|enum\b|union\b|using\b|typedef\b|template\b|"
    r"extern\b|static_assert\b|TEST|INSTANTIATE)")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_:~]*(?:operator\s*\S+?)?)\s*\(")


def functions(path):
    """(name, first line, length) of each column-0 function definition in `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or NOT_A_FUNCTION.match(line) or "(" not in line:
            i += 1
            continue
        # The signature may span lines: find "{" at a line end before any ";".
        j = i
        opened = False
        while j < len(lines) and j < i + 12:
            text = lines[j].split("//")[0].rstrip()
            if text.endswith("{"):
                opened = True
                break
            if text.endswith(";") or text.endswith("}"):
                break
            j += 1
        if not opened:
            i += 1
            continue
        if lines[j].rstrip().endswith("{") and lines[j].lstrip().startswith("= "):
            i = j + 1  # an initializer, not a body
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        head = " ".join(lines[i:j + 1])
        match = NAME.search(head.split("(")[0] + "(")
        name = match.group(1) if match else head[:40]
        if "=" in head.split("(")[0]:
            i = k + 1  # a variable initialised with a brace block, not a function
            continue
        out.append((name, i + 1, k - i + 1))
        i = k + 1
    return out


def all_functions(root):
    for top in ("src", "include"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h", ".cpp", ".hpp")):
                    path = os.path.join(dirpath, n)
                    rel = os.path.relpath(path, root)
                    for name, first, length in functions(path):
                        yield rel, name, first, length


def read_allowed():
    allowed = {}
    with open(ALLOWED) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if not line:
                continue
            length, path, name = line.split()
            allowed[(path, name)] = int(length)
    return allowed


def check(root, allowed):
    problems = []
    seen = {}
    for path, name, first, length in all_functions(root):
        key = (path, name)
        seen[key] = max(seen.get(key, 0), length)
        if length <= LIMIT:
            continue
        if key not in allowed:
            problems.append(f"{path}:{first}: {name} is {length} lines (limit {LIMIT}): split it "
                            "along what it does")
        elif length > allowed[key]:
            problems.append(f"{path}:{first}: {name} grew to {length} lines (allowed "
                            f"{allowed[key]}, and that list only shrinks)")
    for key, length in allowed.items():
        if seen.get(key, 0) <= LIMIT:
            problems.append(f"{ALLOWED}: {key[0]} {key[1]} is now {seen.get(key, 0)} lines or "
                            "gone: remove its line")
    return problems


def selftest(root):
    scratch = tempfile.mkdtemp()
    try:
        for top in ("src", "include"):
            shutil.copytree(os.path.join(root, top), os.path.join(scratch, top))
        allowed = read_allowed()
        if check(scratch, allowed):
            print("function-lengths --selftest: the tree itself fails the check", file=sys.stderr)
            return 1
        status = 0
        plant = os.path.join(scratch, "src", "core", "plant.cpp")
        with open(plant, "w") as f:
            f.write("int long_one(int x) {\n" + "  x += 1;\n" * 90 + "  return x;\n}\n")
        if not check(scratch, allowed):
            print("function-lengths --selftest: a new 93-line function was not caught",
                  file=sys.stderr)
            status = 1
        os.remove(plant)
        if allowed:
            (path, name), length = next(iter(allowed.items()))
            grown = dict(allowed)
            grown[(path, name)] = length - 1
            if not check(scratch, grown):
                print("function-lengths --selftest: a grown allowed function was not caught",
                      file=sys.stderr)
                status = 1
            shrunk = dict(allowed)
            shrunk[("src/core/none.cpp", "gone")] = 100
            if not check(scratch, shrunk):
                print("function-lengths --selftest: a stale allowed line was not caught",
                      file=sys.stderr)
                status = 1
        if status == 0:
            print("function-lengths --selftest: a new long function, a grown one and a stale "
                  "line each caught")
        return status
    finally:
        shutil.rmtree(scratch)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    limit = LIMIT
    mode = "list"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--root":
            root = args.pop(0)
        elif a == "--limit":
            limit = int(args.pop(0))
        elif a in ("--check", "--selftest"):
            mode = a[2:]
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if mode == "selftest":
        return selftest(root)
    if mode == "check":
        problems = check(root, read_allowed())
        for p in problems:
            print("function-lengths: " + p, file=sys.stderr)
        return 1 if problems else 0
    rows = [(length, path, name) for path, name, _, length in all_functions(root) if length > limit]
    for length, path, name in sorted(rows, reverse=True):
        print(f"{length} {path} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
