// The prose of the man pages: examples a person can paste, the exit statuses each subcommand
// returns (read from the code: src/cli/*.cpp, apply::combined_exit_status,
// os::start_failure_status; tests/integration/manuals/exit_statuses.sh makes each one happen
// and checks the page lists exactly those), the CPU-expression syntax and the documents to read.
#include "src/cli/manual_sections.hpp"

namespace threadmap::cli {
namespace {

const ManualEntry kSuccess{"0", "Success."};
const ManualEntry kFailed{"1",
                          "The command line was fine but the work failed: a file unreadable "
                          "or unwritable, a CPU not allowed, a process gone, output that "
                          "could not be written."};
const ManualEntry kUsage{"2",
                         "The command line is wrong (an unknown or conflicting option, a "
                         "value that cannot be valid, a missing argument): nothing was read, "
                         "measured or run."};

// run and watch -- CMD: the program's status comes first, as a shell would give it, so a script
// tests `threadmap run ... -- ./app` as it tested `./app`.
std::vector<ManualEntry> program_statuses(const std::string& who) {
  return {
      {"0", "The program exited with status 0 (and " + who +
                "'s own output, when asked for, was written)."},
      {"1",
       "threadmap failed before the program started (a plan unreadable, a CPU not allowed), or "
       "the program exited 0 but threadmap's own output could not be written; or the "
       "program's own status 1."},
      {"2", "The command line is wrong (nothing was started); or the program's own status 2."},
      {"N", "The program's own exit status when it was not 0."},
      {"126",
       "The program was found but could not be executed (permission denied, not an "
       "executable), as in sh(1)."},
      {"127", "The program was not found, as in sh(1)."},
      {"128+N",
       "The program was killed by signal N (130 for SIGINT, 143 for SIGTERM), as in "
       "sh(1). Signals sent to threadmap (SIGINT, SIGTERM, SIGHUP, ...) are passed "
       "to the program."},
  };
}

CommandManual topo_manual() {
  CommandManual m;
  m.paragraphs = {
      "The tree comes from hwloc: packages, NUMA nodes, caches, cores and their SMT siblings, "
      "CPU kinds (performance and efficiency cores), and which CPUs this process may use (its "
      "affinity and its cgroup's cpuset)."};
  m.examples = {
      {"threadmap topo", "The tree of this machine."},
      {"threadmap topo --summary", "One line: packages, cores, threads, NUMA nodes, caches."},
      {"lstopo --of xml > server.xml; threadmap topo --topology server.xml",
       "Another machine, from the XML that hwloc's lstopo wrote there."},
      {"threadmap topo --json > topo.json", "The same as JSON (schema threadmap.topology/1)."},
  };
  m.statuses = {kSuccess, kFailed, kUsage};
  m.documents = {"README.md", "docs/json.md"};
  m.see_also = {"lstopo(1)", "hwloc-calc(1)"};
  return m;
}

CommandManual latency_manual() {
  CommandManual m;
  m.paragraphs = {
      "Each pair of CPUs passes a cache line back and forth; the one-way latency is half the "
      "round trip, the median of timed batches. Every pair is measured twice, in a shuffled "
      "order, and a pair whose two passes disagree is flagged; the matrix is called unstable "
      "when more than 10% of its pairs moved. The analysis groups CPUs into latency domains and "
      "compares them with the topology.",
      "The terminal heatmap fits 100 columns: large machines are drawn in blocks (each cell "
      "the median of a block of CPUs); --png, --svg and --csv hold every cell."};
  m.examples = {
      {"threadmap latency", "Measure every pair of the CPUs this process may use."},
      {"threadmap latency --quick",
       "One representative pair per topology class (SMT siblings, same L3, ...): seconds "
       "instead of minutes on a large machine."},
      {"threadmap latency --cpus core:0-7 --png lat.png --json lat.json",
       "The first eight cores only, with a heatmap picture and the matrix as JSON."},
      {"threadmap latency --load lat.json --topology server.xml",
       "Analyse a saved matrix (ours, or core-to-core-latency's CSV) against the machine it "
       "was measured on."},
  };
  m.statuses = {kSuccess, kFailed, kUsage};
  m.documents = {"docs/latency.md", "docs/noisy-machines.md", "docs/json.md"};
  m.takes_cpus = true;
  return m;
}

CommandManual plan_manual() {
  CommandManual m;
  m.paragraphs = {
      "A plan says which CPU each thread of a workload should run on, and what it costs against "
      "naive placements. The workload is a spec (threads and how much they talk, see "
      "docs/plan.md) or a quick form (--pairs N, --threads N); the machine is this one, "
      "an hwloc XML (--topology) or a measured latency matrix (--latency). "
      "threadmap run --plan applies a plan written with -o."};
  m.examples = {
      {"threadmap plan --threads 8 --policy scatter",
       "Eight compute threads, one per core first, then on SMT siblings."},
      {"threadmap plan --pairs 2 --export taskset",
       "Two pairs of threads that talk, as taskset lines (or numactl, omp, slurm, systemd, "
       "...)."},
      {"threadmap plan --spec spec.json --latency lat.json -o plan.json",
       "A spec placed on a measured matrix; the plan file is for threadmap run --plan."},
      {"threadmap plan --ranks 4 --export slurm",
       "This node split into four rank shares (NUMA nodes, L3 domains, cores), as srun "
       "options."},
  };
  m.statuses = {kSuccess, kFailed, kUsage};
  m.documents = {"docs/plan.md", "docs/cluster.md", "docs/json.md"};
  m.see_also = {"taskset(1)", "numactl(8)", "likwid-pin(1)"};
  m.takes_cpus = true;
  return m;
}

CommandManual run_manual() {
  CommandManual m;
  m.paragraphs = {
      "The program runs unmodified: libthreadmap-pin.so (LD_PRELOAD) pins each thread as it "
      "is created, by creation order, name or start routine's library, and "
      "libthreadmap-cache.so (--thread-cache) keeps finished threads to serve the next "
      "pthread_create. Neither can act on a static executable (no dynamic loader).",
      "run returns the program's own exit status (see EXIT STATUS), so it can stand in "
      "front of a command in any script."};
  m.examples = {
      {"threadmap run --cpus 0-3 --policy scatter -- ./app",
       "Spread the threads of ./app over CPUs 0 to 3, one per core first."},
      {"threadmap run --plan plan.json -- ./app",
       "Pin thread k to the plan's assignment k (threadmap plan -o plan.json)."},
      {"threadmap run --cpus numa:0 --mem bind:0 -- ./app", "Threads and memory on NUMA node 0."},
      {"threadmap run --thread-cache -- ./server",
       "Reuse finished threads instead of creating new ones."},
      {"threadmap run --cpus 0-7 --watch -- ./app",
       "Also watch where its threads ran; the summary goes to stderr at exit."},
      {"mpirun --bind-to none threadmap run --ranks auto --record rec -- ./app",
       "Each MPI rank takes its share of the node and records what happened, for threadmap "
       "job rec."},
  };
  m.statuses = program_statuses("run");
  m.documents = {"docs/run-and-watch.md", "docs/thread-cache.md", "docs/cluster.md"};
  m.see_also = {"taskset(1)", "numactl(8)"};
  m.takes_cpus = true;
  return m;
}

CommandManual ps_manual() {
  CommandManual m;
  m.paragraphs = {
      "One line per thread: tid, name, the CPUs it may use, the CPU it last ran on, its CPU% "
      "over --sample seconds (as top -H shows it) and CPU time, and its context "
      "switches."};
  m.examples = {
      {"threadmap ps 4242", "The threads of process 4242."},
      {"threadmap ps 4242 --sample 2", "CPU% measured over two seconds."},
      {"threadmap ps 4242 --json", "As JSON (schema threadmap.threads/1)."},
  };
  m.statuses = {kSuccess,
                {"1", "The process does not exist (or is gone), or its threads cannot be read."},
                kUsage};
  m.documents = {"docs/run-and-watch.md", "docs/json.md"};
  m.see_also = {"top(1)", "ps(1)"};
  return m;
}

CommandManual pin_manual() {
  CommandManual m;
  m.paragraphs = {
      "Sets the affinity of the threads of a running process (all of them, or those --threads "
      "selects), inside what its cgroup allows. A thread id instead of a process id pins that "
      "thread only."};
  m.examples = {
      {"threadmap pin 4242 --cpus core:0-1 --threads 'worker*'",
       "The threads of 4242 named worker* onto the first two cores (all their SMT siblings)."},
      {"threadmap pin 4243 --cpus 2", "Thread 4243 alone onto CPU 2."},
      {"threadmap pin 4242 --cpus all", "Undo: every thread may run anywhere allowed again."},
  };
  m.statuses = {kSuccess,
                {"1",
                 "The process is gone, or some thread could not be pinned (each one is "
                 "named; the others were pinned), or no thread matched --threads."},
                kUsage};
  m.documents = {"docs/run-and-watch.md"};
  m.see_also = {"taskset(1)"};
  m.takes_cpus = true;
  return m;
}

CommandManual watch_manual() {
  CommandManual m;
  m.paragraphs = {
      "Samples every thread of a process (and, with --follow, of the processes it starts) "
      "every --interval ms: the CPU it is on, its CPU time, migrations and context switches. "
      "The summary marks the process's first (main) thread, says how many threads the process "
      "created while watched (new thread ids, from the kernel), shows a thread id the kernel "
      "reused as a new thread, and tells threads with the same name apart by their thread id. "
      "On a terminal a live table is redrawn; Ctrl-C ends a watch of a PID and still prints "
      "the summary.",
      "With -- CMD, watch starts the program and returns its exit status as run does."};
  m.examples = {
      {"threadmap watch 4242 --duration 10", "Watch process 4242 for ten seconds."},
      {"threadmap watch --timeline t.png -- ./app",
       "Start ./app and draw where each thread ran over time."},
      {"threadmap watch --follow -- make -j4",
       "The threads of make and of every process it starts."},
      {"threadmap watch --plan plan.json --json w.json -- ./app",
       "How much of each thread's time was on its planned CPUs, and the summary as JSON."},
  };
  std::vector<ManualEntry> statuses = program_statuses("watch");
  statuses[0].text =
      "A PID was watched to its end, its --duration or Ctrl-C, and the summary was "
      "written; with -- CMD, the program exited 0.";
  statuses[1].text =
      "The process could not be watched (no such PID, gone before the first sample) or the "
      "summary could not be written; with -- CMD, also the program's own status 1.";
  m.statuses = statuses;
  m.documents = {"docs/run-and-watch.md", "docs/json.md"};
  m.see_also = {"top(1)", "perf(1)"};
  return m;
}

CommandManual bench_manual() {
  CommandManual m;
  m.paragraphs = {
      "Each bench runs its variants (OS placement, pinned, ...) interleaved, round by round, and "
      "compares each with its baseline by a stated test: a ratio is printed only when the "
      "difference is clear. The machine's state during the runs (busy, steal, CPU frequency) is "
      "printed with the results."};
  m.examples = {
      {"threadmap bench contention", "Two pairs of threads on one atomic each: where to put them."},
      {"threadmap bench spawn --quick",
       "Thread create+join with and without the thread cache, in a few seconds."},
      {"threadmap bench pingpong --pair 0,1", "A counter handed between CPUs 0 and 1."},
      {"threadmap bench smt --runs 9 --json smt.json", "More runs, and JSON beside the table."},
  };
  m.statuses = {kSuccess,
                {"1",
                 "The bench could not run (a helper program not built, the machine "
                 "unreadable) or its JSON could not be written."},
                kUsage};
  m.documents = {"docs/bench-and-report.md", "docs/noisy-machines.md", "docs/results/README.md"};
  return m;
}

CommandManual report_manual() {
  CommandManual m;
  m.paragraphs = {
      "Topology, latency, the benches and placement advice for this machine, within one time "
      "budget, written as report.html (self-contained), report.json and a latency heatmap. The "
      "terminal gets a short summary."};
  m.examples = {
      {"threadmap report", "Everything, in ./threadmap-report (about a minute)."},
      {"threadmap report --quick --out /tmp/r", "A quick report (about 20 s) in /tmp/r."},
      {"threadmap report --latency lat.json --budget 2m",
       "Use a matrix measured before, and give the benches two minutes."},
      {"threadmap report --quick --out reports/%h; threadmap fleet reports",
       "One directory per host (%h is the host name), then compare the hosts."},
  };
  m.statuses = {kSuccess,
                {"1",
                 "The report could not be collected or written (the directory not "
                 "writable, the matrix unreadable); a directory it created is removed."},
                kUsage};
  m.documents = {"docs/bench-and-report.md", "docs/fleet.md", "docs/json.md"};
  return m;
}

CommandManual job_manual() {
  CommandManual m;
  m.paragraphs = {
      "Reads the rank records threadmap run --ranks ... --record DIR left in "
      "DIR, one per rank, and says where each rank's threads ran against its share of the "
      "node: threads outside their share, ranks sharing cores, oversubscribed cores, "
      "migrations. The HTML page draws each rank's threads over time (running, runnable but "
      "waiting for a CPU, asleep)."};
  m.examples = {
      {"mpirun --bind-to none threadmap run --ranks auto --record rec -- ./app; "
       "threadmap job rec",
       "Run a job with each rank in its share, then read what happened."},
      {"threadmap job rec --html job.html", "The same as a page, with the per-rank timelines."},
      {"threadmap job rec --strict || echo 'placement findings'",
       "In a batch script: exit 3 when there are findings."},
  };
  m.statuses = {kSuccess,
                {"1",
                 "DIR cannot be read or holds no rank record, or an output could not be "
                 "written."},
                kUsage,
                {"3", "With --strict: the records were read and there are findings."}};
  m.documents = {"docs/cluster.md", "docs/json.md"};
  m.see_also = {"mpirun(1)", "srun(1)"};
  return m;
}

CommandManual fleet_manual() {
  CommandManual m;
  m.paragraphs = {
      "Reads one machine report per host (DIR/<host>/report.json or DIR/*.json), groups hosts "
      "that should be alike (same CPU model and topology) and names the hosts that differ from "
      "their group: latency, benches, kernel settings."};
  m.examples = {
      {"threadmap fleet reports", "Compare the hosts whose reports are under reports/."},
      {"threadmap fleet reports --html fleet.html", "The same as a page."},
      {"threadmap fleet reports --strict || echo 'some host differs'",
       "In a script: exit 3 when some host differs from its group."},
  };
  m.statuses = {kSuccess,
                {"1",
                 "DIR cannot be read or holds no report, or an output could not be "
                 "written."},
                kUsage,
                {"3",
                 "With --strict: the reports were read and some host differs from its "
                 "group."}};
  m.documents = {"docs/fleet.md", "docs/json.md"};
  return m;
}

CommandManual tune_manual() {
  CommandManual m;
  m.paragraphs = {
      "Runs the program under each candidate placement (os, compact, scatter, one-core, "
      "plan:FILE, cpus:EXPR, the thread cache, ...), interleaved round by round so that a "
      "drifting machine affects every candidate alike, adds rounds while the leaders are "
      "unclear and the budget allows, and names a winner only when the difference is clear. "
      "When the rounds cannot decide (too few for the budget, an interruption, rounds other "
      "work disturbed, which count for no verdict) it says undecided, why, and what would "
      "decide it (a --budget, a quiet machine) instead of naming a best. "
      "It prints the lines that reproduce the winner (threadmap run, taskset, ...).",
      "Ctrl-C ends the runs; what was measured so far is still judged and printed."};
  m.examples = {
      {"threadmap tune -- ./app input", "The built-in candidates that differ on this machine."},
      {"threadmap tune --candidates os,compact,scatter --budget 2m -- ./app",
       "Three candidates, two minutes."},
      {"threadmap tune --metric 'rate: ([0-9.]+)' --higher -- ./bench",
       "Judge by a number the program prints (higher is better) instead of its wall time."},
      {"threadmap tune --thread-cache --json tune.json -- ./server",
       "Every candidate with and without the thread cache; the runs as JSON."},
  };
  m.statuses = {kSuccess,
                {"1",
                 "The runs could not be made or judged (the program failed under every "
                 "candidate, a --metric expression matched nothing it printed, a plan:FILE "
                 "that cannot be read) or an output could not be written."},
                {"2",
                 "The command line is wrong, nothing was run: an unknown or conflicting "
                 "option, a value that cannot be valid, or a candidate that cannot be prepared "
                 "(a plan:FILE that is not a plan, a cpus:EXPR this machine does not have)."},
                {"130",
                 "Interrupted (Ctrl-C, SIGINT): the runs made so far were still judged "
                 "and printed."}};
  m.documents = {"docs/tune.md", "docs/noisy-machines.md", "docs/json.md"};
  m.takes_cpus = true;
  return m;
}

}  // namespace

CommandManual command_manual(const std::string& name) {
  if (name == "topo") return topo_manual();
  if (name == "latency") return latency_manual();
  if (name == "plan") return plan_manual();
  if (name == "run") return run_manual();
  if (name == "ps") return ps_manual();
  if (name == "pin") return pin_manual();
  if (name == "watch") return watch_manual();
  if (name == "bench") return bench_manual();
  if (name == "report") return report_manual();
  if (name == "job") return job_manual();
  if (name == "fleet") return fleet_manual();
  if (name == "tune") return tune_manual();
  return {};
}

std::vector<ManualEntry> common_statuses() {
  return {kSuccess,
          kFailed,
          kUsage,
          {"3", "job and fleet with --strict: there are findings (the work itself succeeded)."},
          {"N, 126, 127, 128+N",
           "run and watch -- CMD: the program's own status, or the shell's for a program "
           "not executable (126), not found (127) or killed by signal N."},
          {"130", "tune interrupted by Ctrl-C (what was measured is still printed)."},
          {"70", "An internal error in threadmap (a bug: please report the command line)."}};
}

std::vector<ManualExample> main_examples() {
  return {
      {"threadmap topo --summary", "What is this machine?"},
      {"threadmap latency --quick", "How far apart its CPUs are, measured."},
      {"threadmap plan --pairs 2 -o plan.json", "Where two pairs of talking threads should run."},
      {"threadmap run --plan plan.json --watch -- ./app",
       "Run an unmodified program with that placement, and check it held."},
      {"threadmap tune -- ./app", "Try the candidate placements on the program itself."},
      {"threadmap report", "All of it for this machine, as one HTML page and JSON."},
  };
}

const std::vector<std::string>& cpu_expression_types() {
  static const std::vector<std::string> types = {"pu",  "core",    "die",  "l1",    "l2",
                                                 "l3",  "package", "numa", "group", "machine",
                                                 "gpu", "nic",     "pci"};
  return types;
}

std::string cpu_expression_brief() {
  return "a list (0-3,8), a mask (0xff), all, or TYPE:INDEXES locations (pu, core, die, l1, l2, "
         "l3, package, numa, group, machine: hwloc logical indexes, numa by OS node; gpu:N, "
         "nic:NAME, pci:BUSID: the CPUs near a device), several joined by +";
}

CpuExpressionSyntax cpu_expressions() {
  CpuExpressionSyntax syntax;
  syntax.intro =
      "Options that take CPUs (--cpus, --allowed, --reserved, a cpus: candidate of tune) accept "
      "the same expressions, resolved against the machine (or the --topology given). The "
      "result is always a set of OS CPU numbers, as taskset and /proc use them.";
  syntax.forms = {
      {"0-3,8,10-14:2",
       "A kernel CPU list: numbers, ranges A-B and ranges with a stride A-B:S (here 10, 12 "
       "and 14)."},
      {"0xff",
       "A hexadecimal mask as taskset prints it (CPUs 0 to 7); a long mask in 32-bit words, "
       "high first: 0xff,ffffffff. The 0x is required."},
      {"all", "Every CPU this process may use (its affinity within its cgroup)."},
      {"core:0-3",
       "Locations in hwloc-calc(1) syntax, TYPE:INDEXES: the CPUs of cores 0 to 3 (with their "
       "SMT siblings). Indexes are hwloc's LOGICAL indexes, in topology order, from 0; \"all\" "
       "takes every object of the type. Types: pu (or cpu), core, die, l1, l2, l3 (any cache "
       "hwloc names), package (or socket), numa (or node), group, machine; a type the machine "
       "has no object of (die on most VMs) is an error that says so."},
      {"numa:1",
       "NUMA nodes by their OS number (as numactl and /sys/devices/system/node use), not "
       "hwloc's logical index: where the two differ, numa:2 is node 2."},
      {"package:1.core:0-1",
       "Nested locations: cores 0 and 1 of package 1 (indexes count within the parent)."},
      {"gpu:0",
       "The CPUs local to a device, as hwloc-calc's pci= and os= locations: gpu:N (the N-th GPU "
       "in PCI bus order) or gpu:UUID, nic:NAME (netdev or RDMA name), pci:BUSID (a GPU, NIC or "
       "NVMe drive). threadmap topo lists the devices."},
      {"core:0+core:4", "Several terms joined by + or spaces: their union."},
  };
  syntax.outro =
      "A CPU that does not exist, an index out of range or an unknown type is an error that "
      "names the term; an empty expression is refused. threadmap topo shows the objects and "
      "their indexes.";
  return syntax;
}

}  // namespace threadmap::cli
