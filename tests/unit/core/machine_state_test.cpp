// Judging recorded /proc/stat counters: quiet, busy from neighbours, busy from steal, a guest.
#include "src/core/machine_state.hpp"

#include <gtest/gtest.h>

namespace threadmap {
namespace {

// /proc/stat as Linux writes it: user nice system idle iowait irq softirq steal guest guest_nice.
os::MachineSnapshot snapshot(std::int64_t ns, unsigned busy0, unsigned idle0, unsigned steal0,
                             unsigned busy1, unsigned idle1, unsigned steal1, int running) {
  std::string text = "cpu  0 0 0 0 0 0 0 0 0 0\n";
  text += "cpu0 " + std::to_string(busy0) + " 0 0 " + std::to_string(idle0) + " 0 0 0 " +
          std::to_string(steal0) + " 0 0\n";
  text += "cpu1 " + std::to_string(busy1) + " 0 0 " + std::to_string(idle1) + " 0 0 0 " +
          std::to_string(steal1) + " 0 0\n";
  text += "intr 1 2 3\nctxt 42\nprocs_running " + std::to_string(running) + "\nprocs_blocked 0\n";
  os::MachineSnapshot s;
  s.taken_ns = ns;
  EXPECT_TRUE(os::parse_proc_stat(text, s));
  EXPECT_TRUE(os::parse_loadavg("0.52 0.58 0.59 2/345 4242\n", s));
  return s;
}

const CpuSet kBoth = CpuSet::from_vector({0, 1});

TEST(ProcStat, ParsesPerCpuTicksAndRunnableTasks) {
  os::MachineSnapshot s;
  ASSERT_TRUE(os::parse_proc_stat(
      "cpu  10 1 5 100 2 1 1 3 0 0\ncpu0 4 1 2 50 1 1 0 2 0 0\nprocs_running 3\n", s));
  ASSERT_EQ(s.cpus.count(0), 1u);
  EXPECT_EQ(s.cpus[0].busy, 4u + 1 + 2 + 1 + 0);
  EXPECT_EQ(s.cpus[0].idle, 51u);
  EXPECT_EQ(s.cpus[0].steal, 2u);
  EXPECT_EQ(s.procs_running, 3);
  EXPECT_FALSE(os::parse_proc_stat("cpu0 x y\n", s));
  EXPECT_FALSE(os::parse_loadavg("garbage", s));
}

TEST(MachineState, IdleNeighboursAndNoStealIsQuiet) {
  auto w = snapshot(0, 100, 1000, 0, 100, 1000, 0, 1);
  auto a = snapshot(200'000'000, 101, 1019, 0, 100, 1020, 0, 1);
  auto b = snapshot(1'200'000'000, 200, 1019, 0, 198, 1022, 0, 2);
  MachineState s = judge_machine_state(w, a, b, {}, "", kBoth);
  EXPECT_EQ(s.verdict, MachineVerdict::quiet);
  EXPECT_EQ(s.summary.rfind("quiet machine", 0), 0u) << s.summary;
  EXPECT_NEAR(s.others_busy_pct_before, 100.0 * 1 / 40, 1e-9);
  EXPECT_EQ(s.runnable_before, 0);
  EXPECT_EQ(s.runnable_after, 1);
  EXPECT_NEAR(s.steal_pct, 0, 1e-9);
  EXPECT_NEAR(s.load1_before, 0.52, 1e-9);
}

TEST(MachineState, NeighboursUsingOurCpusBeforeTheRunMakeItBusy) {
  // A CPU hog on CPU 1: 20 of 20 ticks busy while threadmap slept.
  auto w = snapshot(0, 100, 1000, 0, 100, 1000, 0, 2);
  auto a = snapshot(200'000'000, 100, 1020, 0, 120, 1000, 0, 2);
  auto b = snapshot(1'200'000'000, 200, 1020, 0, 220, 1000, 0, 3);
  MachineState s = judge_machine_state(w, a, b, {}, "", kBoth);
  EXPECT_EQ(s.verdict, MachineVerdict::busy);
  EXPECT_NEAR(s.others_busy_pct_before, 50, 1e-9);
  EXPECT_NE(s.summary.find("others used 50% of CPUs 0-1 just before"), std::string::npos)
      << s.summary;
  EXPECT_NE(s.summary.find("2 runnable tasks on 2 CPUs"), std::string::npos) << s.summary;
}

TEST(MachineState, StealOverTheRunMakesItBusyAndAGuestIsNamed) {
  auto w = snapshot(0, 100, 1000, 0, 100, 1000, 0, 1);
  auto a = snapshot(200'000'000, 100, 1020, 0, 100, 1020, 0, 1);
  // 180 busy + 20 stolen ticks over the run: 10% steal.
  auto b = snapshot(1'200'000'000, 190, 1020, 10, 190, 1020, 10, 1);
  os::Virtualization kvm{true, "KVM", "CPUID hypervisor bit"};
  MachineState s = judge_machine_state(w, a, b, kvm, "", kBoth);
  EXPECT_EQ(s.verdict, MachineVerdict::busy);
  EXPECT_NEAR(s.steal_pct, 10, 1e-9);
  EXPECT_NE(s.summary.find("steal 10.0%"), std::string::npos) << s.summary;
  EXPECT_NE(s.summary.find("KVM guest"), std::string::npos) << s.summary;
}

TEST(MachineState, OnlyTheJudgedCpusCount) {
  // CPU 1 is busy but the measurement used CPU 0 only.
  auto w = snapshot(0, 100, 1000, 0, 100, 1000, 0, 1);
  auto a = snapshot(200'000'000, 100, 1020, 0, 120, 1000, 0, 1);
  auto b = snapshot(1'200'000'000, 200, 1020, 0, 220, 1000, 0, 1);
  EXPECT_EQ(judge_machine_state(w, a, b, {}, "", CpuSet::from_vector({0})).verdict,
            MachineVerdict::quiet);
}

TEST(Hypervisor, SignaturesAndDmiStringsNameTheHypervisor) {
  // Signatures as the hypervisors' documentation gives them (CPUID leaf 0x40000000).
  EXPECT_EQ(os::hypervisor_from_signature("KVMKVMKVM"), "KVM");
  EXPECT_EQ(os::hypervisor_from_signature("Microsoft Hv"), "Microsoft Hyper-V");
  EXPECT_EQ(os::hypervisor_from_signature("VMwareVMware"), "VMware");
  EXPECT_EQ(os::hypervisor_from_signature("Amazon EC2 m5.large"), "KVM (Amazon EC2)");
  EXPECT_EQ(os::hypervisor_from_signature("Dell Inc. PowerEdge R740"), "");
}

TEST(MachineWatch, ReadsThisMachine) {
  MachineWatch watch;
  watch.start(CpuSet::from_vector({0}), 20);
  MachineState s = watch.finish();
  EXPECT_TRUE(s.verdict == MachineVerdict::quiet || s.verdict == MachineVerdict::busy) << s.summary;
  EXPECT_FALSE(s.summary.empty());
}

}  // namespace
}  // namespace threadmap
