// The plan JSON, both ways. The reader is strict about what `run` relies on and tolerant of
// fields it does not use (cost, baselines, exports) so the planner can grow them.
#include "src/plan/plan_file.hpp"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "src/core/json_text.hpp"
#include "src/os/files.hpp"
// The plan is run through tm-pin/1 (TM_PIN_CONFIG): a CPU or node it cannot carry is refused here,
// when the plan is read, with the limits the pin library's parser uses. plan may include this one
// header of src/preload: plain C macros that include nothing, so no layer cycle can come of it.
#include "src/preload/common/tm_pin_limits.h"

namespace threadmap::plan {
namespace {

nlohmann::json breakdown_json(const CostBreakdown& c) {
  return {{"communication", c.communication},
          {"share_core", c.share_core},
          {"background", c.background},
          {"kinds", c.kinds},
          {"numa", c.numa},
          {"isolated", c.isolated},
          {"total", c.total()},
          {"rule_breaks",
           {{"compute_smt_pairs", c.compute_smt_pairs},
            {"exclusive_conflicts", c.exclusive_conflicts},
            {"oversubscribed_threads", c.oversubscribed_threads}}}};
}

}  // namespace

nlohmann::json plan_json(const Plan& p) {
  nlohmann::json assignments = nlohmann::json::array();
  for (const auto& a : p.assignments) {
    assignments.push_back({{"thread", a.thread}, {"cpus", a.cpus.to_vector()}, {"why", a.why}});
    if (a.memory_node >= 0) assignments.back()["memory_node"] = a.memory_node;  // run --plan
  }
  nlohmann::json baselines = nlohmann::json::object();
  nlohmann::json baseline_detail = nlohmann::json::object();
  for (const auto& [name, cost] : p.baselines) {
    baselines[name] = cost.total();
    baseline_detail[name] = breakdown_json(cost);
    baseline_detail[name]["feasible"] = cost.rule_breaks() <= p.cost.rule_breaks();
  }
  return {
      {"schema", "threadmap.plan/1"},
      {"source", p.source},
      {"cpus", p.candidates.to_list()},
      {"assignments", assignments},
      {"cost", p.cost.total()},
      {"rule_breaks", p.cost.rule_breaks()},
      {"cost_unit", "sum of edge weight x one-way latency ns, plus penalties in ns-equivalents"},
      {"cost_breakdown", breakdown_json(p.cost)},
      {"model", p.model},
      {"solver", p.solver},
      {"proven_optimal", p.proven_optimal},
      {"stopped_by_time", p.stopped_by_time},
      {"search_steps", p.search_nodes},
      {"min_steps", p.min_steps},
      {"search_start", p.search_start.empty() ? nlohmann::json() : nlohmann::json(p.search_start)},
      {"improved_on_start", p.improved_on_start},
      {"solve_ms", p.solve_ms},
      {"kinds", p.kinds_note},
      {"baselines", baselines},
      {"baseline_breakdown", baseline_detail}};
}

Result<PlanFile> parse_plan(const std::string& text, const std::string& source) {
  auto bad = [&source](const std::string& why) {
    return Error::invalid("bad plan '" + source + "': " + why);
  };
  auto parsed = parse_json_text(text);
  if (!parsed) return bad(parsed.error().message);
  nlohmann::json doc = std::move(*parsed);
  if (!doc.is_object()) return bad("expected a JSON object");
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string())
    return bad("missing \"schema\" (expected \"threadmap.plan/1\")");
  if (schema->get<std::string>() != "threadmap.plan/1")
    return bad("schema is \"" + schema->get<std::string>() + "\", expected \"threadmap.plan/1\"");
  auto list = doc.find("assignments");
  if (list == doc.end() || !list->is_array()) return bad("missing \"assignments\" array");
  PlanFile plan;
  if (auto model = doc.find("model"); model != doc.end() && model->is_string())
    plan.model = model->get<std::string>();
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& item = (*list)[i];
    std::string where = "assignment " + std::to_string(i);
    if (!item.is_object()) return bad(where + " is not an object");
    auto name = item.find("thread");
    if (name == item.end() || !name->is_string() || name->get<std::string>().empty())
      return bad(where + ": missing \"thread\" name");
    auto cpus = item.find("cpus");
    if (cpus == item.end() || !cpus->is_array() || cpus->empty())
      return bad(where + " (" + name->get<std::string>() + "): missing or empty \"cpus\"");
    PlannedThread planned;
    planned.thread = name->get<std::string>();
    for (const nlohmann::json& cpu : *cpus) {
      if (!cpu.is_number_integer() || cpu.get<long>() < 0 || cpu.get<long>() > TM_PIN_MAX_CPU)
        return bad(where + " (" + planned.thread + "): CPU " + cpu.dump() + " is not a CPU number");
      planned.cpus.add(cpu.get<int>());
    }
    if (auto node = item.find("memory_node"); node != item.end() && !node->is_null()) {
      if (!node->is_number_integer() || node->get<long>() < 0 ||
          node->get<long>() > TM_PIN_MAX_NODE)
        return bad(where + " (" + planned.thread + "): memory_node " + node->dump() +
                   " is not a NUMA node number (0-" + std::to_string(TM_PIN_MAX_NODE) + ")");
      planned.memory_node = node->get<int>();
    }
    if (!seen.insert(planned.thread).second)
      return bad("thread \"" + planned.thread + "\" appears twice");
    plan.assignments.push_back(std::move(planned));
  }
  if (plan.assignments.empty()) return bad("\"assignments\" is empty");
  return plan;
}

Result<PlanFile> read_plan_file(const std::string& path) {
  auto text = os::read_file(path, os::kDefaultReadLimit, "plan");
  if (!text) return text.error();
  return parse_plan(*text, path == "-" ? "stdin" : path);
}

}  // namespace threadmap::plan
