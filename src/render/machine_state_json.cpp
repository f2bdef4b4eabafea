#include "src/render/machine_state_json.hpp"

namespace threadmap::render {
namespace {

nlohmann::json known(double value) {
  return value < 0 ? nlohmann::json(nullptr) : nlohmann::json(value);
}
nlohmann::json known(int value) {
  return value < 0 ? nlohmann::json(nullptr) : nlohmann::json(value);
}

}  // namespace

nlohmann::json machine_state_json(const MachineState& s) {
  nlohmann::json j;
  j["verdict"] = machine_verdict_name(s.verdict);
  j["summary"] = s.summary;
  j["evidence"] = s.evidence;
  j["guest"] = s.guest;
  j["hypervisor"] = s.hypervisor.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.hypervisor);
  j["hypervisor_evidence"] = s.hypervisor_evidence;
  j["cpufreq_policy"] =
      s.cpufreq_policy.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.cpufreq_policy);
  j["cpus"] = s.cpus;
  j["cpu_count"] = s.cpu_count;
  j["others_busy_pct_before"] = known(s.others_busy_pct_before);
  j["idle_window_s"] = s.idle_window_s;
  j["runnable_before"] = known(s.runnable_before);
  j["runnable_after"] = known(s.runnable_after);
  j["load1_before"] = known(s.load1_before);
  j["load1_after"] = known(s.load1_after);
  j["steal_pct"] = known(s.steal_pct);
  j["duration_s"] = s.duration_s;
  return j;
}

nlohmann::json binding_json(const ProcessBinding& b) {
  nlohmann::json j;
  j["affinity"] = b.affinity.to_list();
  j["cgroup"] = b.cgroup.to_list();
  j["machine"] = b.machine.to_list();
  j["launcher"] = b.launcher.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.launcher);
  j["narrower"] = b.narrower;
  j["confined"] = b.confined;
  j["finding"] = b.finding.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.finding);
  return j;
}

}  // namespace threadmap::render
