#!/usr/bin/env python3
"""The real-runtime matrix as a benchmark (run by hand, not a test): every case of
tests/runtimes (`ctest -L runtimes`) run plainly and under the thread cache by
`threadmap tune --candidates os,cache`, which interleaves the runs (order reversed every other
round, a warm-up run first), adds rounds while the verdict is unclear, and states it by the
project's rule (two-sided Mann-Whitney U at 5%, 95% median intervals apart, effect >= 5%; see
docs/tune.md). The metric is each run's wall time, spawn to exit. Prints one Markdown table;
each case's tune JSON and text go to OUT.

  bench/runtimes/compare.py BUILD OUT [--budget 40s] [--runs 5] [CASE_REGEX]

BUILD is a configured and built build tree (it lists the cases with `ctest --show-only` and
holds bin/threadmap); cases whose runtime is missing are listed as skipped.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time


def cases(build, pattern):
    """(name, command, needs, skip) for every runtime case, from ctest's own list."""
    listing = subprocess.run(
        ["ctest", "--test-dir", build, "-L", "runtimes", "--show-only=json-v1"],
        check=True, capture_output=True, text=True).stdout
    for test in json.loads(listing)["tests"]:
        name = test["name"].removeprefix("runtimes.")
        command = test.get("command", [])
        if not command or not command[0].endswith("run_case.sh") or "--" not in command:
            continue  # not a case (run_stats checks the CLI)
        if pattern and not re.search(pattern, name):
            continue
        options = command[1:command.index("--")]
        needs = ""
        skip = ""
        for i, word in enumerate(options[:-1]):
            if word == "--needs":
                needs = options[i + 1]
            elif word == "--skip":
                skip = options[i + 1]
        yield name, command[command.index("--") + 1:], [n for n in needs.split(",") if n], skip


def missing(needs, skip):
    if skip:
        return skip
    for item in needs:
        if item.startswith("/"):
            if not os.path.exists(item):
                return item + " was not built"
        elif shutil.which(item) is None:
            return item + " is not installed"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("out")
    parser.add_argument("--budget", default="40s", help="tune's --budget per case")
    parser.add_argument("--runs", default="5", help="tune's --runs (least rounds) per case")
    parser.add_argument("pattern", nargs="?", default="", help="only cases matching this regex")
    args = parser.parse_args()
    threadmap = os.path.join(args.build, "bin", "threadmap")
    if not os.access(threadmap, os.X_OK):
        sys.exit("compare.py: %s not found (build the threadmap_cli target)" % threadmap)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name, command, needs, skip in cases(args.build, args.pattern):
        reason = missing(needs, skip)
        if reason:
            rows.append((name, "skipped: " + reason, "", "", "", ""))
            continue
        json_path = os.path.join(args.out, name + ".json")
        started = time.monotonic()
        run = subprocess.run(
            [threadmap, "tune", "--candidates", "os,cache", "--budget", args.budget,
             "--runs", args.runs, "--json", json_path, "--"] + command,
            capture_output=True, text=True)
        with open(os.path.join(args.out, name + ".txt"), "w") as text:
            text.write(run.stdout + run.stderr)
        print("%-20s %.0f s, exit %d" % (name, time.monotonic() - started, run.returncode),
              file=sys.stderr)
        if run.returncode != 0 or not os.path.exists(json_path):
            rows.append((name, "tune failed (exit %d): see %s.txt" % (run.returncode, name),
                         "", "", "", ""))
            continue
        with open(json_path) as f:
            result = json.load(f)
        by_name = {c["name"]: c for c in result["candidates"]}
        plain, cached = by_name["os"], by_name["cache"]
        verdict = cached["verdict_vs_os"]
        word = verdict["word"]
        if word != "no clear difference":
            word = "cache %.2fx %s" % (verdict["ratio"] if verdict["ratio"] >= 1
                                       else 1 / verdict["ratio"], word)
        busy = sum(c.get("disturbed_runs_kept", 0) for c in (plain, cached))
        rows.append((name, "%.3g s (%d)" % (plain["median"], len(plain["samples"])),
                     "%.3g s (%d)" % (cached["median"], len(cached["samples"])),
                     "%.2f" % (cached["median"] / plain["median"]),
                     "%s, p=%.3g" % (word, verdict["p_value"]),
                     "%d of %d runs disturbed" % (busy, len(plain["samples"]) +
                                                  len(cached["samples"]))))
    print("| case | plain median (runs) | cache median (runs) | cache / plain | verdict (vs plain) "
          "| machine |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
