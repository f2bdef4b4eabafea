// `run --mem`: syntax, and the nodes checked against recorded multi-node machines. Node numbers
// are the OS's (numactl, /sys): on the Dell R740 in SNC2 mode hwloc's logical order of the NUMA
// nodes is OS 0,2,1,3 (tests/data/topologies/README.md), so a check by logical index would
// accept or name the wrong node.
#include "src/apply/memory_policy.hpp"

#include <gtest/gtest.h>

#include <string>

#include "src/apply/run_options.hpp"
#include "src/apply/run_request.hpp"
#include "src/core/text.hpp"

namespace threadmap::apply {
namespace {

const std::string kData = THREADMAP_TEST_DATA;

Topology load(const std::string& name) {
  auto topo = Topology::load_xml(kData + "/topologies/" + name);
  EXPECT_TRUE(topo.ok()) << name;
  return std::move(*topo);
}

TEST(MemoryPolicyParse, AcceptsTheFourModes) {
  auto local = parse_memory_policy("local");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->mode, MemoryMode::local);
  EXPECT_TRUE(local->nodes.empty());

  auto interleave = parse_memory_policy("interleave");
  ASSERT_TRUE(interleave.ok());
  EXPECT_EQ(interleave->mode, MemoryMode::interleave);
  EXPECT_TRUE(interleave->nodes.empty());  // every node, filled in by the check

  auto bind = parse_memory_policy("bind:3,0-1,1");
  ASSERT_TRUE(bind.ok());
  EXPECT_EQ(bind->mode, MemoryMode::bind);
  EXPECT_EQ(bind->nodes, (std::vector<int>{0, 1, 3}));  // sorted, no duplicates

  auto preferred = parse_memory_policy("preferred:2");
  ASSERT_TRUE(preferred.ok());
  EXPECT_EQ(preferred->mode, MemoryMode::preferred);
  EXPECT_EQ(preferred->nodes, (std::vector<int>{2}));
}

TEST(MemoryPolicyParse, RejectsBadSyntaxNamingIt) {
  for (const char* bad : {"", "membind:0", "bind", "bind:", "bind:a", "bind:1-", "bind:3-1",
                          "bind:0,,1", "bind:-1", "preferred", "preferred:0,1", "preferred:0-1",
                          "local:0", "interleave:", "bind:1024", "bind:99999", "Bind:0"}) {
    auto policy = parse_memory_policy(bad);
    ASSERT_FALSE(policy.ok()) << "'" << bad << "' accepted";
    EXPECT_EQ(policy.error().code, std::errc::invalid_argument);
    EXPECT_NE(policy.error().message.find("'" + std::string(bad) + "'"), std::string::npos)
        << policy.error().message;
  }
}

TEST(MemoryPolicyCheck, R740Snc2UsesOsNodeNumbers) {
  Topology r740 = load("dell-r740-2x-xeon-gold6230-snc2-2lm.xml");
  // hwloc's logical order here is OS 0,2,1,3: the check must see the OS numbers 0-3.
  auto nodes = r740.numa_nodes();
  ASSERT_EQ(nodes.size(), 4u);

  auto interleave = memory_policy_for("interleave", r740);
  ASSERT_TRUE(interleave.ok()) << interleave.error().message;
  EXPECT_EQ(interleave->nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(encode_memory_policy(*interleave), "interleave:0-3");

  // OS node 2 is the second sub-NUMA cluster of socket 0 (logical #1): kept as 2, not remapped.
  auto preferred = memory_policy_for("preferred:2", r740);
  ASSERT_TRUE(preferred.ok()) << preferred.error().message;
  EXPECT_EQ(encode_memory_policy(*preferred), "preferred:2");

  auto bind = memory_policy_for("bind:1,3", r740);
  ASSERT_TRUE(bind.ok()) << bind.error().message;
  EXPECT_EQ(encode_memory_policy(*bind), "bind:1,3");

  auto missing = memory_policy_for("bind:0,4", r740);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "node 4 does not exist on this machine (nodes: 0-3)");
}

TEST(MemoryPolicyCheck, EightNodeOpteronAndTwentyFourNodeUv) {
  Topology opteron = load("amd-4x-opteron6200-bulldozer-8numa.xml");
  auto all = memory_policy_for("interleave:all", opteron);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(encode_memory_policy(*all), "interleave:0-7");
  EXPECT_TRUE(memory_policy_for("bind:6-7", opteron).ok());
  auto eight = memory_policy_for("preferred:8", opteron);
  ASSERT_FALSE(eight.ok());
  EXPECT_EQ(eight.error().message, "node 8 does not exist on this machine (nodes: 0-7)");

  Topology uv = load("sgi-uv2000-24x-xeon-e5-4640.xml");
  EXPECT_TRUE(memory_policy_for("bind:23", uv).ok());
  EXPECT_FALSE(memory_policy_for("bind:24", uv).ok());
}

TEST(MemoryPolicyCheck, SparseNodeNumbersAreNamed) {
  // A machine whose nodes are 0 and 2 (a node offline, or a memory-only node numbered after
  // the CPU nodes): 1 does not exist although there are two nodes.
  std::vector<NumaNode> nodes(2);
  nodes[0].os_index = 0;
  nodes[1].os_index = 2;
  MemoryPolicy one{MemoryMode::bind, {1}};
  auto st = check_memory_policy(one, nodes);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "node 1 does not exist on this machine (nodes: 0,2)");
  MemoryPolicy all{MemoryMode::interleave, {}};
  ASSERT_TRUE(check_memory_policy(all, nodes).ok());
  EXPECT_EQ(all.nodes, (std::vector<int>{0, 2}));
}

TEST(MemoryPolicyCheck, OneNodeMachineAcceptsEveryPolicyAndSaysNoOp) {
  Topology vm = load("this-vm-kvm-2vcpu-epyc.xml");
  for (const char* text : {"local", "interleave", "bind:0", "preferred:0"}) {
    auto policy = memory_policy_for(text, vm);
    ASSERT_TRUE(policy.ok()) << text << ": " << policy.error().message;
    EXPECT_NE(describe_memory_policy(*policy, 1).find("no-op on a 1-node machine"),
              std::string::npos);
  }
  auto seven = memory_policy_for("bind:7", vm);
  ASSERT_FALSE(seven.ok());
  EXPECT_EQ(seven.error().message, "node 7 does not exist on this machine (node: 0)");
  // No NUMA information at all counts as node 0.
  MemoryPolicy zero{MemoryMode::bind, {0}};
  EXPECT_TRUE(check_memory_policy(zero, {}).ok());
}

TEST(MemoryPolicyDescribe, SaysPolicyAndNodes) {
  MemoryPolicy bind{MemoryMode::bind, {0, 2, 3}};
  std::string line = describe_memory_policy(bind, 4);
  EXPECT_NE(line.find("bind to nodes 0,2-3"), std::string::npos) << line;
  EXPECT_EQ(line.find("no-op"), std::string::npos) << line;
  EXPECT_EQ(node_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

// prepare_run checks the memory policy on this machine before anything starts, and names the
// member.
// The launch request of `run -- true` with `memory` as --mem (run_request is its one source).
RunRequest with_memory(const std::string& memory) {
  RunOptions options;
  options.command = {"true"};
  options.memory = memory;
  return run_request(options)->request;
}

TEST(PrepareRunMemory, BadPolicyOrMissingNodeNamesTheMemoryMember) {
  RunRequest r = with_memory("bind:1023");  // no machine here has 1024 nodes
  std::string note;
  auto missing = prepare_run(r, &note);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().input, "memory");
  EXPECT_EQ(missing.error().fault, Fault::input);
  EXPECT_EQ(missing.error().code, std::errc::invalid_argument);
  EXPECT_NE(missing.error().message.find("node 1023 does not exist on this machine"),
            std::string::npos)
      << missing.error().message;
  auto malformed = prepare_run(with_memory("membind:0"));
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().input, "memory");
}

TEST(PrepareRunMemory, MemAloneLoadsThePinLibraryWithTheEncodedPolicy) {
  RunRequest r = with_memory("interleave");
  std::string note;
  auto launch = prepare_run(r, &note);
  if (!launch && launch.error().code == std::errc::no_such_file_or_directory)
    GTEST_SKIP() << launch.error().message;  // preload library not built next to the tests
  ASSERT_TRUE(launch.ok()) << launch.error().message;
  ASSERT_EQ(launch->preload.size(), 1u);
  std::string config;
  for (const auto& [name, value] : launch->set_env)
    if (name == "TM_PIN_CONFIG") config = value;
  // Every node of this machine, by OS number.
  EXPECT_EQ(config.rfind("tm-pin/1;mem=interleave:", 0), 0u) << config;
  EXPECT_NE(note.find("memory policy: interleave over"), std::string::npos) << note;
}

}  // namespace
}  // namespace threadmap::apply
