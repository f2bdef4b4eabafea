// CpuSet parsing and printing: the kernel list syntax, taskset masks, and every bad-input class.
#include "threadmap/cpuset.hpp"

#include <gtest/gtest.h>

using threadmap::CpuSet;

namespace {

CpuSet list(const char* text) {
  auto r = CpuSet::parse_list(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : CpuSet();
}

}  // namespace

TEST(CpuSetList, ParsesSinglesRangesAndStrides) {
  EXPECT_EQ(list("0").to_vector(), std::vector<int>({0}));
  EXPECT_EQ(list("0-3,8").to_vector(), std::vector<int>({0, 1, 2, 3, 8}));
  EXPECT_EQ(list("10-15:2").to_vector(), std::vector<int>({10, 12, 14}));
  EXPECT_EQ(list("0-3,8,10-15:2").count(), 8u);
  EXPECT_EQ(list(" 1 , 3 ").to_vector(), std::vector<int>({1, 3}));
  EXPECT_EQ(list("5,1,5").to_vector(), std::vector<int>({1, 5}));
}

TEST(CpuSetList, RoundTripsThroughKernelSyntax) {
  for (const char* text : {"0", "0-3", "0-3,8", "1,3,5", "0-1023", "2,4-7,100-101"}) {
    EXPECT_EQ(list(text).to_list(), text);
  }
  EXPECT_EQ(list("10-15:2").to_list(), "10,12,14");
  EXPECT_EQ(CpuSet().to_list(), "");
}

TEST(CpuSetList, HandlesCpusBeyondCpuSetSize) {
  CpuSet s = list("4000-4003");
  EXPECT_EQ(s.count(), 4u);
  EXPECT_TRUE(s.contains(4002));
  EXPECT_EQ(s.first(), 4000);
  EXPECT_EQ(s.last(), 4003);
}

TEST(CpuSetList, RejectsBadInputNamingTheItem) {
  struct Case {
    const char* text;
    const char* token;
  } cases[] = {
      {"", "empty"},          {"0,,2", "empty item"},
      {"abc", "'abc'"},       {"3-x", "'3-x'"},
      {"5-2", "'5-2'"},       {"-1", "'-1'"},
      {"0-3:0", "'0-3:0'"},   {"4:2", "'4:2'"},
      {"1.5", "'1.5'"},       {"0-99999999", "'0-99999999'"},
      {"0-3,", "empty item"},
  };
  for (const Case& c : cases) {
    auto r = CpuSet::parse_list(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.token), std::string::npos)
        << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument));
  }
}

TEST(CpuSetMask, ParsesTasksetMasks) {
  EXPECT_EQ(CpuSet::parse_mask("0xff")->to_list(), "0-7");
  EXPECT_EQ(CpuSet::parse_mask("ff")->to_list(), "0-7");
  EXPECT_EQ(CpuSet::parse_mask("0x5")->to_list(), "0,2");
  EXPECT_EQ(CpuSet::parse_mask("1,00000000")->to_list(), "32");
  EXPECT_EQ(CpuSet::parse_mask("ff,ffffffff")->to_list(), "0-39");
  EXPECT_EQ(CpuSet::parse_mask("0x100000000")->to_list(), "32");
}

TEST(CpuSetMask, RoundTrips) {
  for (const char* text : {"0-7", "0,2", "32", "0-39", "63-64"}) {
    CpuSet s = list(text);
    auto back = CpuSet::parse_mask(s.to_mask());
    ASSERT_TRUE(back.ok()) << s.to_mask();
    EXPECT_EQ(*back, s) << text << " via " << s.to_mask();
  }
  EXPECT_EQ(CpuSet().to_mask(), "0x0");
}

TEST(CpuSetMask, RejectsBadMasks) {
  for (const char* text : {"0x", "0xfg", "ff,,ff", "ff,123456789", "zz"}) {
    auto r = CpuSet::parse_mask(text);
    EXPECT_FALSE(r.ok()) << text;
  }
}

TEST(CpuSetParse, DetectsMaskByPrefix) {
  EXPECT_EQ(CpuSet::parse("0x3")->to_list(), "0-1");
  EXPECT_EQ(CpuSet::parse("3")->to_list(), "3");
}

TEST(CpuSetAlgebra, SetOperations) {
  CpuSet a = list("0-7");
  CpuSet b = list("4-11");
  EXPECT_EQ((a & b).to_list(), "4-7");
  EXPECT_EQ((a | b).to_list(), "0-11");
  EXPECT_EQ((a - b).to_list(), "0-3");
  EXPECT_TRUE(list("1-2").is_subset_of(a));
  EXPECT_FALSE(b.is_subset_of(a));
  EXPECT_TRUE(a.intersects(b));
  EXPECT_FALSE(list("0-1").intersects(list("2-3")));
  CpuSet c = a;
  c -= b;
  EXPECT_EQ(c.to_list(), "0-3");
  c.remove(0);
  c.add(20);
  EXPECT_EQ(c.to_list(), "1-3,20");
  EXPECT_EQ(c.next(3), 20);
  EXPECT_EQ(c.next(20), -1);
}

TEST(CpuSetValue, CopyAndMoveKeepSetsIndependent) {
  CpuSet a = list("1-3");
  CpuSet b = a;
  b.add(9);
  EXPECT_EQ(a.to_list(), "1-3");
  CpuSet c = std::move(b);
  EXPECT_EQ(c.to_list(), "1-3,9");
  EXPECT_TRUE(b.empty());  // NOLINT: moved-from sets stay valid and empty
  b.add(4);
  EXPECT_EQ(b.to_list(), "4");
  EXPECT_EQ(CpuSet({0, 2}).to_list(), "0,2");
  EXPECT_EQ(CpuSet::range(3, 5).to_list(), "3-5");
  EXPECT_TRUE(CpuSet::range(5, 3).empty());
}
