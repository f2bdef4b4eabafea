// The share a placed program is shown (pin_share.c): which rules make it, the process's own
// affinity cutting it, and the answer written over the kernel's.
#include "pin_share.h"

#include <gtest/gtest.h>

#include <vector>

#include "pin_test_util.hpp"

namespace {

std::vector<unsigned long> share_of(const std::string& text, const std::vector<int>& allowed = {}) {
  ParsedConfig parsed = parse_config(text);
  EXPECT_TRUE(parsed.ok) << parsed.error;
  std::vector<unsigned long> share(TM_PIN_SHARE_WORDS, 0);
  std::vector<unsigned long> mask(TM_PIN_SHARE_WORDS, 0);
  for (int cpu : allowed) mask[cpu / 64] |= 1UL << (cpu % 64);
  tm__share_from_config(&parsed.config, allowed.empty() ? nullptr : mask.data(), mask.size(),
                        share.data());
  return share;
}

std::vector<int> cpus(const std::vector<unsigned long>& mask) {
  std::vector<int> out;
  for (size_t c = 0; c < mask.size() * 64; ++c)
    if ((mask[c / 64] >> (c % 64)) & 1) out.push_back(static_cast<int>(c));
  return out;
}

TEST(PinShare, UnionOfEveryPlacingRule) {
  // What `run --cpus 0-3` writes: main on the policy's first CPU, the cycle over the rest.
  EXPECT_EQ(cpus(share_of("tm-pin/1;main=0;cycle=1/2/3/0")), (std::vector<int>{0, 1, 2, 3}));
  // A plan: main, slots, names and libraries all count.
  EXPECT_EQ(cpus(share_of("tm-pin/1;main=4;slot=0:5;slot=2:9-10;name=io*:12;lib=libgomp*:14")),
            (std::vector<int>{4, 5, 9, 10, 12, 14}));
}

TEST(PinShare, OriginalAndSkipsAreNotPartOfIt) {
  // original= is where unclaimed threads go back to, not what the program was given.
  EXPECT_EQ(cpus(share_of("tm-pin/1;main=2;cycle=3/2;skip=1;skipname=x*;original=0-63")),
            (std::vector<int>{2, 3}));
}

TEST(PinShare, NoPlacingRuleNoShare) {
  ParsedConfig parsed = parse_config("tm-pin/1;mem=local");
  ASSERT_TRUE(parsed.ok) << parsed.error;
  std::vector<unsigned long> share(TM_PIN_SHARE_WORDS, 0);
  EXPECT_EQ(tm__share_from_config(&parsed.config, nullptr, 0, share.data()), 0u);
  EXPECT_TRUE(cpus(share).empty());
}

TEST(PinShare, CutByTheProcessAffinityUnlessDisjoint) {
  EXPECT_EQ(cpus(share_of("tm-pin/1;main=0;cycle=1/2/3", {0, 1, 8})), (std::vector<int>{0, 1}));
  // Disjoint (a plan written for other CPUs): the rules' CPUs stand, the kernel decides.
  EXPECT_EQ(cpus(share_of("tm-pin/1;main=4;cycle=5", {0, 1})), (std::vector<int>{4, 5}));
}

TEST(PinShare, AnswerReplacesANarrowedMaskWithinTheShare) {
  std::vector<unsigned long> share = share_of("tm-pin/1;main=0;cycle=1/2/3/0");
  unsigned long mask[2] = {1UL << 2, 0};  // the kernel's: CPU 2, as the pinner narrowed it
  ASSERT_TRUE(tm__share_contains(share.data(), mask, sizeof mask));
  ASSERT_EQ(tm__share_write(share.data(), mask, sizeof mask), 0);
  EXPECT_EQ(mask[0], 0xfUL);
  EXPECT_EQ(mask[1], 0UL);
}

TEST(PinShare, AMaskOutsideTheShareIsTheKernels) {
  std::vector<unsigned long> share = share_of("tm-pin/1;main=0;cycle=1");
  unsigned long widened[1] = {0xffUL};  // taskset -p from outside, or the program's own
  EXPECT_FALSE(tm__share_contains(share.data(), widened, sizeof widened));
  unsigned long high[2] = {0, 1UL};  // CPU 64
  EXPECT_FALSE(tm__share_contains(share.data(), high, sizeof high));
}

TEST(PinShare, AnswerRefusesBuffersThatCannotHoldIt) {
  std::vector<unsigned long> share = share_of("tm-pin/1;main=0;cycle=70");
  unsigned long small[1] = {1UL};  // 64 CPUs: CPU 70 does not fit
  EXPECT_EQ(tm__share_write(share.data(), small, sizeof small), -1);
  EXPECT_EQ(small[0], 1UL);
  unsigned long odd[2] = {1UL, 0};
  EXPECT_EQ(tm__share_write(share.data(), odd, 12), -1);  // not whole words: the kernel's
  unsigned long fits[2] = {1UL, 0};
  EXPECT_EQ(tm__share_write(share.data(), fits, sizeof fits), 0);
  EXPECT_EQ(fits[0], 1UL);
  EXPECT_EQ(fits[1], 1UL << 6);
}

}  // namespace
