"""CPython case of the thread-cache matrix: threads created again and again, with a result that
depends only on the work.
  spawn.py threading N    N threading.Thread objects, each started and joined in turn
  spawn.py subprocess N   N rounds of one thread that runs `true` through subprocess.run, then
                          4 threads that only compute (the thread that started a process is 1
                          create in 5: if it is never reused, reuse stays under 80%)
  spawn.py fork N         the same with os.fork in that thread (the child exits at once with
                          status 3, the thread waits for it)
"""
import os
import subprocess
import sys
import threading


def work(index):
    return sum((i ^ index) % 7 for i in range(1000))


def run_threads(first, count, results):
    for index in range(first, first + count):
        t = threading.Thread(target=lambda i=index: results.__setitem__(i, work(i)))
        t.start()
        t.join()


def threads_mode(n):
    results = [0] * n
    run_threads(0, n, results)
    return sum(results)


def run_true(i, codes):
    codes[i] = subprocess.run(["true"]).returncode + 1


def fork_child(i, codes):
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    codes[i] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def process_mode(n, starter):
    codes = [0] * n
    total = 0
    for index in range(n):
        def start(i=index):
            starter(i, codes)
        t = threading.Thread(target=start)
        t.start()
        t.join()
        results = [0] * 4
        run_threads(0, 4, results)
        total += sum(results)
    return total + sum(codes)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "threading"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    if mode == "threading":
        result = threads_mode(n)
    elif mode == "subprocess":
        result = process_mode(n, run_true)
    elif mode == "fork":
        result = process_mode(n, fork_child)
    else:
        sys.stderr.write("spawn.py: unknown mode %s\n" % mode)
        return 2
    print(mode, n, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
