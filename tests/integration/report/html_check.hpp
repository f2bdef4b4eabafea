// A strict little HTML checker for the report: every non-void element closed in order, no
// stray '<', and the attribute values that could reach outside the page (src, href, ...).
#pragma once

#include <string>
#include <vector>

namespace report_test {

/// One attribute found on a tag.
struct Attribute {
  std::string tag;
  std::string name;
  std::string value;
};

/// What the checker found.
struct HtmlCheck {
  std::vector<std::string> errors;    ///< well-formedness problems, empty when well-formed
  std::vector<Attribute> attributes;  ///< every attribute of every tag
  std::vector<std::string> tags;      ///< every opening tag name, in order
};

/// Parses `html` (HTML5 syntax: void elements, raw text in <style>/<script>, comments).
HtmlCheck check_html(const std::string& html);

}  // namespace report_test
