// What reaches a terminal or a JSON document from outside (thread names) is made safe there.
#include "src/render/safe_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace threadmap::render {
namespace {

TEST(TerminalSafe, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(terminal_safe("\x1b[2Jevil"), "\\x1b[2Jevil");
  EXPECT_EQ(terminal_safe("tab\there"), "tab\\x09here");
  EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminal_safe("c1\xc2\x9b"), "c1\\xc2\\x9b");  // U+009B, the 8-bit CSI
}

TEST(TerminalSafe, PrintableUtf8AndInvalidBytes) {
  EXPECT_EQ(terminal_safe("worker-3"), "worker-3");
  EXPECT_EQ(terminal_safe("caf\xc3\xa9"), "caf\xc3\xa9");    // é kept
  EXPECT_EQ(terminal_safe("bad\xff"), "bad\\xff");           // not UTF-8
  EXPECT_EQ(terminal_safe("cut\xe2\x82"), "cut\\xe2\\x82");  // truncated sequence
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");        // overlong '/'
}

TEST(ValidUtf8, InvalidBytesBecomeReplacementCharactersSoJsonCanDumpThem) {
  const std::string name = "t\xff\xfe\x1b";
  nlohmann::json j = {{"name", valid_utf8(name)}};
  std::string dumped;
  EXPECT_NO_THROW(dumped = j.dump());
  EXPECT_FALSE(dumped.empty());
  EXPECT_EQ(valid_utf8(name), "t\xEF\xBF\xBD\xEF\xBF\xBD\x1b");
  EXPECT_EQ(valid_utf8("caf\xc3\xa9"), "caf\xc3\xa9");
}

}  // namespace
}  // namespace threadmap::render
