// Parsing and validating the workload spec JSON. Strict on purpose: an unknown key or a typo in
// a thread name is an error naming the input, never silently ignored, because a plan built on a
// misread spec looks right and runs slow.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_map>

#include "src/core/json_text.hpp"
#include "src/os/files.hpp"
#include "src/plan/one_line.hpp"
#include "src/plan/spec.hpp"

namespace threadmap::plan {
namespace {

using nlohmann::json;

// Groups and shorthand edges multiply: 3,000 threads all-to-all is 4.5 M edges. Past this the
// planner's memory and time grow without a better plan; the spec should name fewer edges.
constexpr std::size_t kMaxEdges = 2'000'000;

class SpecParser {
 public:
  explicit SpecParser(std::string source) : source_(std::move(source)) {}

  Result<WorkloadSpec> parse(const json& doc) {
    spec_.source = source_;
    if (!doc.is_object()) return fail("the top level must be a JSON object");
    for (const auto& [key, value] : doc.items()) {
      static const std::set<std::string> known = {
          "threads", "edges", "groups", "constraints", "oversubscribe", "schema", "comment"};
      if (!known.count(key)) return fail("unknown key '" + key + "'");
    }
    if (!doc.contains("threads")) return fail("missing \"threads\"");
    if (auto st = parse_threads(doc["threads"]); !st) return st.error();
    if (doc.contains("edges"))
      if (auto st = parse_edges(doc["edges"]); !st) return st.error();
    if (doc.contains("groups"))
      if (auto st = parse_groups(doc["groups"]); !st) return st.error();
    if (doc.contains("constraints"))
      if (auto st = parse_constraints(doc["constraints"]); !st) return st.error();
    if (doc.contains("oversubscribe")) {
      if (!doc["oversubscribe"].is_boolean())
        return fail("\"oversubscribe\" must be true or false");
      spec_.oversubscribe = doc["oversubscribe"].get<bool>();
    }
    if (spec_.edges.size() > kMaxEdges)
      return fail(std::to_string(spec_.edges.size()) +
                  " edges (after expanding groups and shorthand) is more than " +
                  std::to_string(kMaxEdges) + "; use smaller groups");
    if (auto st = resolve_share_core(); !st) return st.error();
    return std::move(spec_);
  }

 private:
  Error fail(const std::string& why) const {
    return Error::invalid(one_line("spec " + source_ + ": " + why));
  }

  Status parse_threads(const json& threads) {
    if (!threads.is_array() || threads.empty())
      return fail("\"threads\" must be a non-empty array");
    for (std::size_t i = 0; i < threads.size(); ++i) {
      const json& t = threads[i];
      const std::string where = "threads[" + std::to_string(i) + "]";
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string())
        return fail(where + " must be an object with a \"name\" string");
      ThreadSpec proto;
      std::string partner;
      for (const auto& [key, value] : t.items()) {
        if (key == "name") continue;
        if (key == "traits") {
          if (!value.is_array()) return fail(where + ".traits must be an array of strings");
          for (const json& trait : value) {
            if (!trait.is_string()) return fail(where + ".traits must be an array of strings");
            if (auto st = apply_trait(trait.get<std::string>(), where, proto, partner); !st)
              return st;
          }
        } else if (key == "share-core-with") {
          if (!value.is_string()) return fail(where + ".share-core-with must be a thread name");
          partner = value.get<std::string>();
        } else if (key == "memory-node") {
          if (!value.is_number_integer() || value.get<int>() < 0)
            return fail(where + ".memory-node must be a NUMA node number >= 0");
          proto.memory_node = value.get<int>();
        } else if (key == "cpus") {
          if (!value.is_string() || value.get<std::string>().empty())
            return fail(where + ".cpus must be a CPU expression such as \"0-3\"");
          proto.cpus = value.get<std::string>();
        } else {
          return fail(where + ": unknown key '" + key + "'");
        }
      }
      if (proto.background && (proto.latency_critical || proto.compute))
        return fail(where + ": a thread cannot be background and compute or latency-critical");
      auto names = expand_name(t["name"].get<std::string>());
      if (!names) return fail(where + ": " + names.error().message);
      for (const std::string& name : *names) {
        if (!index_.emplace(name, static_cast<int>(spec_.threads.size())).second)
          return fail("duplicate thread name '" + name + "'");
        ThreadSpec thread = proto;
        thread.name = name;
        spec_.threads.push_back(std::move(thread));
        partners_.push_back(partner);
      }
    }
    return {};
  }

  Status apply_trait(const std::string& trait, const std::string& where, ThreadSpec& t,
                     std::string& partner) {
    static constexpr std::string_view share = "share-core-with:";
    if (trait == "compute")
      t.compute = true;
    else if (trait == "latency-critical")
      t.latency_critical = true;
    else if (trait == "background")
      t.background = true;
    else if (trait == "exclusive")
      t.exclusive = true;
    else if (trait.rfind(share, 0) == 0) {
      partner = trait.substr(share.size());
      while (!partner.empty() && partner.front() == ' ') partner.erase(partner.begin());
      if (partner.empty()) return fail(where + ": share-core-with needs a thread name");
    } else {
      return fail(where + ": unknown trait '" + trait +
                  "' (known: compute, latency-critical, background, exclusive, "
                  "share-core-with:NAME)");
    }
    return {};
  }

  // Names in edges and groups may use the shorthand too; each must name known threads.
  Result<std::vector<int>> lookup(const json& name, const std::string& where) {
    if (!name.is_string()) return fail(where + " must be a thread name");
    auto names = expand_name(name.get<std::string>());
    if (!names) return fail(where + ": " + names.error().message);
    std::vector<int> out;
    for (const std::string& n : *names) {
      auto found = index_.find(n);
      if (found == index_.end()) return fail(where + ": unknown thread '" + n + "'");
      out.push_back(found->second);
    }
    return out;
  }

  // Weights are relative traffic: 1e9 to 1 is more contrast than any workload has, and keeps
  // every cost sum (weight x latency over thousands of edges) finite and exact enough.
  static constexpr double kMaxWeight = 1e9;

  Result<double> weight_of(const json& obj, const std::string& where) {
    if (!obj.contains("weight")) return 1.0;
    const json& w = obj["weight"];
    if (!w.is_number() || !std::isfinite(w.get<double>()) || w.get<double>() <= 0 ||
        w.get<double>() > kMaxWeight)
      return fail(where + ".weight = " + w.dump() +
                  " is out of range (a number > 0 and at most 1e9: relative traffic)");
    return w.get<double>();
  }

  Status parse_edges(const json& edges) {
    if (!edges.is_array()) return fail("\"edges\" must be an array");
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const json& e = edges[i];
      const std::string where = "edges[" + std::to_string(i) + "]";
      if (!e.is_object()) return fail(where + " must be an object");
      for (const auto& [key, value] : e.items())
        if (key != "between" && key != "weight") return fail(where + ": unknown key '" + key + "'");
      if (!e.contains("between") || !e["between"].is_array() || e["between"].size() != 2)
        return fail(where + ".between must list exactly two thread names");
      auto left = lookup(e["between"][0], where + ".between[0]");
      if (!left) return left.error();
      auto right = lookup(e["between"][1], where + ".between[1]");
      if (!right) return right.error();
      auto weight = weight_of(e, where);
      if (!weight) return weight.error();
      if (spec_.edges.size() + left->size() * right->size() > kMaxEdges)
        return fail(where + ": more than " + std::to_string(kMaxEdges) +
                    " edges in all; use fewer");
      const std::string origin = "edge " + e["between"][0].get<std::string>() + " <-> " +
                                 e["between"][1].get<std::string>();
      for (int a : *left)
        for (int b : *right) {
          if (a == b)
            return fail(where + ": thread '" + spec_.threads[a].name + "' talks to itself");
          spec_.edges.push_back(EdgeSpec{a, b, *weight, origin});
        }
    }
    return {};
  }

  Status parse_groups(const json& groups) {
    if (!groups.is_array()) return fail("\"groups\" must be an array");
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const json& g = groups[i];
      const std::string where = "groups[" + std::to_string(i) + "]";
      if (!g.is_object()) return fail(where + " must be an object");
      for (const auto& [key, value] : g.items())
        if (key != "threads" && key != "weight" && key != "name")
          return fail(where + ": unknown key '" + key + "'");
      if (!g.contains("threads") || !g["threads"].is_array())
        return fail(where + ".threads must be an array of thread names");
      std::vector<int> members;
      for (std::size_t k = 0; k < g["threads"].size(); ++k) {
        auto found = lookup(g["threads"][k], where + ".threads[" + std::to_string(k) + "]");
        if (!found) return found.error();
        for (int m : *found) {
          for (int seen : members)
            if (seen == m)
              return fail(where + ": thread '" + spec_.threads[m].name + "' listed twice");
          members.push_back(m);
        }
      }
      if (members.size() < 2) return fail(where + " needs at least two threads");
      if (spec_.edges.size() + members.size() * (members.size() - 1) / 2 > kMaxEdges)
        return fail(where + ": " + std::to_string(members.size()) +
                    " threads all-to-all makes more than " + std::to_string(kMaxEdges) +
                    " edges in all; use smaller groups");
      auto weight = weight_of(g, where);
      if (!weight) return weight.error();
      std::string label = g.contains("name") && g["name"].is_string() ? g["name"].get<std::string>()
                                                                      : std::to_string(i);
      for (std::size_t x = 0; x < members.size(); ++x)
        for (std::size_t y = x + 1; y < members.size(); ++y)
          spec_.edges.push_back(EdgeSpec{members[x], members[y], *weight, "group " + label});
    }
    return {};
  }

  Status parse_constraints(const json& c) {
    if (!c.is_object()) return fail("\"constraints\" must be an object");
    for (const auto& [key, value] : c.items()) {
      if (key == "allowed" || key == "reserved") {
        if (!value.is_string())
          return fail("constraints." + key + " must be a CPU expression string");
        (key == "allowed" ? spec_.allowed : spec_.reserved) = value.get<std::string>();
      } else if (key == "prefer-isolated") {
        if (!value.is_boolean()) return fail("constraints.prefer-isolated must be true or false");
        spec_.prefer_isolated = value.get<bool>();
      } else {
        return fail("constraints: unknown key '" + key + "'");
      }
    }
    return {};
  }

  // share-core-with names one partner per thread; following the names must never come back to
  // the start (A->B->A is a cycle, and so is a thread naming itself).
  Status resolve_share_core() {
    const int n = static_cast<int>(spec_.threads.size());
    for (int i = 0; i < n; ++i) {
      if (partners_[i].empty()) continue;
      auto found = index_.find(partners_[i]);
      const int p = found == index_.end() ? -1 : found->second;
      if (p < 0)
        return fail("thread '" + spec_.threads[i].name +
                    "': share-core-with names unknown thread '" + partners_[i] + "'");
      if (p == i) return fail("thread '" + spec_.threads[i].name + "' shares a core with itself");
      spec_.threads[i].share_core_with = p;
    }
    for (int i = 0; i < n; ++i) {
      int steps = 0;
      std::string path = spec_.threads[i].name;
      for (int at = spec_.threads[i].share_core_with; at >= 0;
           at = spec_.threads[at].share_core_with) {
        path += " -> " + spec_.threads[at].name;
        if (at == i || ++steps > n) return fail("share-core-with cycle: " + path);
      }
    }
    return {};
  }

  std::string source_;
  WorkloadSpec spec_;
  std::vector<std::string> partners_;           // raw share-core-with names, per expanded thread
  std::unordered_map<std::string, int> index_;  // thread name -> index (specs may be large)
};

}  // namespace

int WorkloadSpec::find(std::string_view name) const {
  for (std::size_t i = 0; i < threads.size(); ++i)
    if (threads[i].name == name) return static_cast<int>(i);
  return -1;
}

Result<std::vector<std::string>> expand_name(std::string_view pattern) {
  auto bad = [&](const std::string& why) {
    return Error::invalid("bad thread name '" + std::string(pattern) + "': " + why);
  };
  if (pattern.empty()) return bad("empty");
  for (char c : pattern)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_.-[]:/", c)))
      return bad("only letters, digits and _ . - : / are allowed");
  auto open = pattern.find('[');
  if (open == std::string_view::npos) {
    if (pattern.find(']') != std::string_view::npos) return bad("']' without '['");
    return std::vector<std::string>{std::string(pattern)};
  }
  auto close = pattern.find(']', open);
  if (close == std::string_view::npos) return bad("'[' without ']'");
  if (pattern.find('[', close) != std::string_view::npos)
    return bad("only one [A-B] range allowed");
  std::string_view range = pattern.substr(open + 1, close - open - 1);
  auto dash = range.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == range.size())
    return bad("the range must be [FIRST-LAST]");
  auto number = [](std::string_view s, long& out) {
    if (s.empty() || s.size() > 18) return false;  // fits a long: a huge range is "more than"
    out = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  long first = 0, last = 0;
  if (!number(range.substr(0, dash), first) || !number(range.substr(dash + 1), last))
    return bad("the range must be [FIRST-LAST] with decimal numbers");
  if (first > last) return bad("the range is empty (first > last)");
  if (last - first >= 65536) return bad("more than 65536 threads in one range");
  std::vector<std::string> out;
  for (long k = first; k <= last; ++k)
    out.push_back(std::string(pattern.substr(0, open)) + std::to_string(k) +
                  std::string(pattern.substr(close + 1)));
  return out;
}

Result<WorkloadSpec> parse_spec(std::string_view json_text, const std::string& source) {
  auto doc = parse_json_text(json_text);
  if (!doc) return Error::invalid("spec " + source + ": " + doc.error().message);
  return SpecParser(source).parse(*doc);
}

Result<WorkloadSpec> load_spec(const std::string& path) {
  auto text = os::read_file(path, os::kDefaultReadLimit, "spec");
  if (!text) return Error{text.error().code, one_line(text.error().message)};
  return parse_spec(*text, path == "-" ? "stdin" : path);
}

}  // namespace threadmap::plan
