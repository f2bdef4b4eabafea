#include "html_check.hpp"

#include <algorithm>
#include <cctype>

namespace report_test {
namespace {

bool is_void(const std::string& tag) {
  static const char* voids[] = {"area",  "base", "br",   "col",    "embed", "hr", "img",
                                "input", "link", "meta", "source", "track", "wbr"};
  return std::find(std::begin(voids), std::end(voids), tag) != std::end(voids);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

HtmlCheck check_html(const std::string& html) {
  HtmlCheck out;
  std::vector<std::string> open;
  std::size_t i = 0;
  auto error = [&](const std::string& what) {
    out.errors.push_back(what + " at byte " + std::to_string(i));
  };
  while (i < html.size()) {
    if (html[i] != '<') {
      if (html[i] == '>') error("stray '>' in text");
      ++i;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      std::size_t end = html.find("-->", i);
      if (end == std::string::npos) return error("unclosed comment"), out;
      i = end + 3;
      continue;
    }
    if (html.compare(i, 2, "<!") == 0) {
      i = html.find('>', i) + 1;
      continue;
    }
    const bool closing = i + 1 < html.size() && html[i + 1] == '/';
    std::size_t p = i + (closing ? 2 : 1);
    std::size_t name_end = p;
    while (name_end < html.size() &&
           (std::isalnum(static_cast<unsigned char>(html[name_end])) || html[name_end] == '-'))
      ++name_end;
    if (name_end == p) {
      error("stray '<' in text");
      ++i;
      continue;
    }
    const std::string tag = lower(html.substr(p, name_end - p));
    // Attributes: name="value", name='value', name=value or bare name, up to '>' or '/>'.
    std::size_t q = name_end;
    bool self_closed = false;
    while (q < html.size() && html[q] != '>') {
      if (std::isspace(static_cast<unsigned char>(html[q]))) {
        ++q;
        continue;
      }
      if (html[q] == '/') {
        self_closed = true;
        ++q;
        continue;
      }
      std::size_t a = q;
      while (q < html.size() && html[q] != '=' && html[q] != '>' && html[q] != '/' &&
             !std::isspace(static_cast<unsigned char>(html[q])))
        ++q;
      Attribute attr{tag, lower(html.substr(a, q - a)), ""};
      if (q < html.size() && html[q] == '=') {
        ++q;
        if (html[q] == '"' || html[q] == '\'') {
          const char quote = html[q];
          std::size_t end = html.find(quote, q + 1);
          if (end == std::string::npos) return error("unclosed attribute value"), out;
          attr.value = html.substr(q + 1, end - q - 1);
          q = end + 1;
        } else {
          std::size_t v = q;
          while (q < html.size() && html[q] != '>' &&
                 !std::isspace(static_cast<unsigned char>(html[q])))
            ++q;
          attr.value = html.substr(v, q - v);
        }
      }
      if (attr.value.find('<') != std::string::npos) error("'<' inside an attribute value");
      out.attributes.push_back(attr);
    }
    if (q >= html.size()) return error("unclosed tag <" + tag), out;
    i = q + 1;
    if (closing) {
      if (open.empty() || open.back() != tag) {
        error("</" + tag + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) +
              ">");
      } else {
        open.pop_back();
      }
      continue;
    }
    out.tags.push_back(tag);
    if (is_void(tag) || self_closed) continue;
    if (tag == "style" || tag == "script") {  // raw text up to the closing tag
      std::size_t end = html.find("</" + tag, i);
      if (end == std::string::npos) return error("unclosed <" + tag + ">"), out;
      i = end;
    }
    open.push_back(tag);
  }
  for (const std::string& tag : open) out.errors.push_back("<" + tag + "> never closed");
  return out;
}

}  // namespace report_test
