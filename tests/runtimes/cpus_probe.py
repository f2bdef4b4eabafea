"""Placed-CPU-count probe (cpus_case.sh) for Python: os.sched_getaffinity (glibc), and
os.process_cpu_count where the version has it (3.13+), on the main thread and in a thread of
ours; then every thread's CPUs from the kernel (/proc/self/task/TID/status)."""
import os
import threading


def sizes(prefix):
    out = [f"size {prefix}sched_getaffinity {len(os.sched_getaffinity(0))}"]
    if hasattr(os, "process_cpu_count"):
        out.append(f"size {prefix}process_cpu_count {os.process_cpu_count()}")
    return out


print("\n".join(sizes("")))
started = threading.Barrier(4)
release = threading.Event()
seen = []


def work():
    seen.append(sizes("thread_"))
    started.wait()
    release.wait()


threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads:
    t.start()
started.wait()
print("\n".join(seen[0]))
for tid in os.listdir("/proc/self/task"):
    try:
        with open(f"/proc/self/task/{tid}/status") as status:
            lines = status.readlines()
    except (FileNotFoundError, ProcessLookupError):
        continue  # a thread that ended since the listing is no thread any more
    for line in lines:
        if line.startswith("Cpus_allowed_list:"):
            print("thread-cpus", line[18:].strip())
release.set()
for t in threads:
    t.join()
