// parse_numa_maps on recorded /proc/PID/numa_maps text (format: proc(5), numa(7)).
#include "src/os/numa_maps.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

namespace threadmap::os {
namespace {

// Two nodes, with hugetlbfs pages (the Nx= fields count pages of the mapping's
// kernelpagesize_kB). Written in the kernel's format (proc(5), numa(7): the lines of
// fs/proc/task_mmu.c show_numa_map) since no multi-node machine is at hand; the one-node text in
// the next test was recorded on this development VM.
constexpr const char* kTwoNodes =
    "00400000 default file=/usr/bin/app mapped=20 N0=12 N1=8 kernelpagesize_kB=4\n"
    "7f0000000000 bind:1 anon=512 dirty=512 N1=512 kernelpagesize_kB=4\n"
    "7f1000000000 interleave:0-1 anon=4096 dirty=4096 N0=2048 N1=2048 kernelpagesize_kB=4\n"
    "7f2000000000 default file=/dev/hugepages/x huge dirty=15 N0=12 N1=3 "
    "kernelpagesize_kB=2048\n"
    "7ffd00000000 default stack anon=3 dirty=3 active=0 N0=3 kernelpagesize_kB=4\n"
    "7ffd10000000 default\n";  // a mapping with no resident page

TEST(NumaMaps, SumsPagesAndBytesPerNode) {
  NumaPages p = parse_numa_maps(kTwoNodes);
  ASSERT_EQ(p.nodes.size(), 2u);
  EXPECT_EQ(p.nodes[0].node, 0);
  EXPECT_EQ(p.nodes[0].pages, 12u + 2048 + 12 + 3);
  EXPECT_EQ(p.nodes[0].huge_pages, 12u);
  EXPECT_EQ(p.nodes[0].bytes, (12u + 2048 + 3) * 4096 + 12u * 2048 * 1024);
  EXPECT_EQ(p.nodes[1].node, 1);
  EXPECT_EQ(p.nodes[1].pages, 8u + 512 + 2048 + 3);
  EXPECT_EQ(p.nodes[1].huge_pages, 3u);
  EXPECT_EQ(p.nodes[1].bytes, (8u + 512 + 2048) * 4096 + 3u * 2048 * 1024);
  EXPECT_EQ(p.total_pages(), p.nodes[0].pages + p.nodes[1].pages);
  EXPECT_EQ(p.total_bytes(), p.nodes[0].bytes + p.nodes[1].bytes);
}

TEST(NumaMaps, OneNodeVmAndSparseNodes) {
  NumaPages vm = parse_numa_maps(
      "55fc34737000 default file=/usr/bin/head mapped=2 N0=2 kernelpagesize_kB=4\n"
      "55fc34742000 default file=/usr/bin/head anon=1 dirty=1 active=0 N0=1 "
      "kernelpagesize_kB=4");  // no final newline
  ASSERT_EQ(vm.nodes.size(), 1u);
  EXPECT_EQ(vm.nodes[0].node, 0);
  EXPECT_EQ(vm.nodes[0].pages, 3u);
  // OS node numbers are kept as written (node 2 with no node 1 in between).
  NumaPages sparse = parse_numa_maps("1000 default anon=5 N2=4 N0=1 kernelpagesize_kB=4\n");
  ASSERT_EQ(sparse.nodes.size(), 2u);
  EXPECT_EQ(sparse.nodes[0].node, 0);
  EXPECT_EQ(sparse.nodes[1].node, 2);
  EXPECT_EQ(sparse.nodes[1].pages, 4u);
}

TEST(NumaMaps, MalformedTokensAreSkippedNotTrusted) {
  NumaPages p = parse_numa_maps(
      "1000 default N=3 Nx=4 N0=abc N1=-2 N0=5 mapmax=7 kernelpagesize_kB=zz\n"
      "\n"
      "2000 default N3=1 kernelpagesize_kB=0\n"  // a zero page size keeps the 4 KiB default
      "garbage\n");
  ASSERT_EQ(p.nodes.size(), 2u);
  EXPECT_EQ(p.nodes[0].node, 0);
  EXPECT_EQ(p.nodes[0].pages, 5u);
  EXPECT_EQ(p.nodes[0].bytes, 5u * 4096);
  EXPECT_EQ(p.nodes[1].node, 3);
  EXPECT_EQ(p.nodes[1].bytes, 4096u);
  EXPECT_TRUE(parse_numa_maps("").nodes.empty());
}

TEST(NumaMaps, ReadsThisProcess) {
  auto own = read_numa_pages(getpid());
  if (!own && own.error().code == std::errc::no_such_file_or_directory)
    GTEST_SKIP() << own.error().message;
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_GT(own->total_pages(), 0u);
  auto gone = read_numa_pages(999999999);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, std::errc::no_such_process);
}

}  // namespace
}  // namespace threadmap::os
