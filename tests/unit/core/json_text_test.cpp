// parse_json_text: a user's JSON file either parses or gets one error in our words, with the
// position a person can go to (line and column counted from 1), never nlohmann's exception text.
#include "src/core/json_text.hpp"

#include <gtest/gtest.h>

namespace threadmap {
namespace {

std::string error_of(std::string_view text) {
  auto r = parse_json_text(text);
  EXPECT_FALSE(static_cast<bool>(r)) << text;
  return r ? std::string() : r.error().message;
}

TEST(JsonText, ParsesAValidDocument) {
  auto r = parse_json_text("{\"a\": [1, 2.5, \"x\"]}");
  ASSERT_TRUE(static_cast<bool>(r));
  EXPECT_EQ((*r)["a"][1].get<double>(), 2.5);
}

TEST(JsonText, SyntaxErrorsNameLineAndColumn) {
  // The 'x' is the 8th character of line 2.
  EXPECT_EQ(error_of("{\n  \"a\": x}"), "not valid JSON at line 2, column 8");
  EXPECT_EQ(error_of("[1,,2]"), "not valid JSON at line 1, column 4");
}

TEST(JsonText, OtherFailuresAreSaidPlainly) {
  EXPECT_EQ(error_of(""), "not valid JSON: empty");
  EXPECT_EQ(error_of(" \n\t"), "not valid JSON: empty");
  EXPECT_EQ(error_of("{\"a\": [1, 2"), "not valid JSON: it ends too early (at line 1, column 12)");
  EXPECT_EQ(error_of("[1e999]"), "not valid JSON: a number is too large");
}

TEST(JsonText, NoLibraryTextLeaksIntoMessages) {
  for (const char* bad : {"{", "nul", "[1e999]", "{\"a\":}", "\"\\uZZZZ\"", "[1] x"}) {
    std::string message = error_of(bad);
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
    EXPECT_EQ(message.find("parse_error"), std::string::npos) << message;
    EXPECT_EQ(message.find("last read"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace threadmap
