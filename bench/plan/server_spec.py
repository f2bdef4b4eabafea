#!/usr/bin/env python3
"""Writes the workload spec of bench/plan/plan_bench.cpp's server_workload(THREADS) as the JSON
`threadmap plan --spec` reads, so the planner's figures can be measured through the CLI, as users
run it: one latency-critical dispatcher feeding chains of 8 stages (weight 10 between neighbours,
1 from the dispatcher), THREADS/8 compute workers, THREADS/32 background threads, oversubscribed.

    bench/plan/server_spec.py 1024 > server-1024.json
    threadmap plan --spec server-1024.json --topology bench/plan/synthetic-2pkg-512cpu.xml
"""
import json
import sys


def server_workload(threads):
    names, traits, edges = ["dispatch"], [["latency-critical"]], []
    workers, background = threads // 8, threads // 32
    pipelines = (threads - 1 - workers - background) // 8
    for p in range(pipelines):
        for s in range(8):
            name = f"p{p}s{s}"
            edges.append([names[0] if s == 0 else names[-1], name, 1.0 if s == 0 else 10.0])
            names.append(name)
            traits.append([])
    while len(names) < threads - background:
        names.append(f"worker{len(names)}")
        traits.append(["compute"])
    while len(names) < threads:
        names.append(f"house{len(names)}")
        traits.append(["background"])
    return {
        "comment": f"bench/plan/server_spec.py {threads}: plan_bench's server workload",
        "threads": [{"name": n, "traits": t} for n, t in zip(names, traits)],
        "edges": [{"between": [a, b], "weight": w} for a, b, w in edges],
        "oversubscribe": True,
    }


if __name__ == "__main__":
    json.dump(server_workload(int(sys.argv[1]) if len(sys.argv) > 1 else 1024), sys.stdout)
    sys.stdout.write("\n")
