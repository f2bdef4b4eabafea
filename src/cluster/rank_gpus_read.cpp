#include "src/cluster/rank_gpus_read.hpp"

#include <algorithm>
#include <cctype>

namespace threadmap::cluster {
namespace {

bool is_negative(const std::string& s) {
  return s.size() > 1 && s[0] == '-' && is_index(s.substr(1));
}

std::string range_text(size_t n) {
  return n == 0 ? std::string("none") : "0 to " + std::to_string(n - 1);
}

// ROCm's unique id as ROCr writes and takes it: "GPU-" and 16 hex digits.
bool rocm_uuid_form(const std::string& s) {
  return s.size() == 20 && s.compare(0, 4, "GPU-") == 0 &&
         std::all_of(s.begin() + 4, s.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

int tiles_of(const Device* d) { return d->tiles > 0 ? d->tiles : 1; }

}  // namespace

bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

std::vector<std::string> split_list(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

const std::string* find_var(const Environment& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

Error ListReader::bad(const std::string& entry, const std::string& why) const {
  return Error::bad_input("gpus",
                          out.variable + "='" + out.value + "': entry '" + entry + "' " + why);
}

Result<const Device*> ListReader::entry(const std::string& text,
                                        const std::vector<const Device*>& base, ListRule rule) {
  if (is_index(text)) {
    size_t i = static_cast<size_t>(std::stoi(text));
    if (i >= base.size())
      return bad(text, "is past the end: there are " + std::to_string(base.size()) +
                           " GPUs to number here (" + range_text(base.size()) + ")");
    return base[i];
  }
  if (rule == ListRule::indexes) return bad(text, "is not an index (this variable takes indexes)");
  if (rule == ListRule::rocm && !rocm_uuid_form(text)) {
    const std::string padded = rocm_uuid(text);  // "" unless bare hex of 1-16 digits
    if (!padded.empty())
      return bad(text, "is hwloc's bare hex text of a ROCm UUID, which ROCr does not take: write " +
                           padded);
    return bad(text, "is neither an index nor a UUID as ROCm takes it (GPU- and 16 hex digits)");
  }
  auto found = find_device(devices, "gpu:" + text);
  if (!found) return bad(text, "names no GPU here (" + found.error().message + ")");
  if (std::find(base.begin(), base.end(), *found) == base.end())
    return bad(text, "is a GPU this variable cannot reach (hidden by an earlier variable)");
  return *found;
}

Result<std::vector<const Device*>> ListReader::list(const std::vector<std::string>& entries,
                                                    const std::vector<const Device*>& base,
                                                    ListRule rule) {
  std::vector<const Device*> got;
  for (size_t k = 0; k < entries.size(); ++k) {
    const std::string& e = entries[k];
    if (rule == ListRule::cuda && is_negative(e)) {
      // CUDA's documented rule: an invalid index hides itself and every entry after it.
      if (k + 1 < entries.size())
        out.notes.push_back(out.variable + "='" + out.value + "': entry '" + e +
                            "' hides itself and every later entry (CUDA stops at an invalid "
                            "index)");
      break;
    }
    if (e.empty()) {
      if (entries.size() == 1) break;  // the empty list: no GPU, said below
      return bad(e, "is empty");
    }
    auto d = entry(e, base, rule);
    if (!d) return d.error();
    if (std::find(got.begin(), got.end(), *d) != got.end())
      return bad(
          e, std::string("names GPU ") + std::to_string((*d)->index) + " again" +
                 (rule == ListRule::cuda ? ": CUDA then shows no GPU at all" : ": each GPU once"));
    got.push_back(*d);
  }
  if (got.empty())
    return Error::bad_input("gpus", out.variable + "='" + out.value +
                                        "': the program would see no GPU (the list names none)");
  return got;
}

Status check_cuda_order(ListReader& r, const Environment& env,
                        const std::vector<std::string>& entries,
                        const std::vector<const Device*>& base) {
  if (!std::any_of(entries.begin(), entries.end(), is_index)) return {};
  const std::string* order = find_var(env, "CUDA_DEVICE_ORDER");
  if (order && *order == "PCI_BUS_ID") return {};
  const bool one_model = std::all_of(base.begin(), base.end(), [&](const Device* g) {
    return g->device_id == base.front()->device_id;
  });
  if (!one_model)
    return Error::bad_input(
        "gpus",
        "CUDA_VISIBLE_DEVICES='" + r.out.value +
            "' holds indexes in CUDA's default fastest-first order, which only CUDA knows on a "
            "machine with different GPU models: set CUDA_DEVICE_ORDER=PCI_BUS_ID (nvidia-smi's "
            "order) or name the GPUs by UUID");
  r.out.notes.push_back(
      "CUDA_DEVICE_ORDER is not PCI_BUS_ID: indexes read in bus order (every GPU here is the "
      "same model, so CUDA's fastest-first order is the bus order)");
  return {};
}

Result<std::string> level_zero_hierarchy(const Environment& env) {
  const std::string* h = find_var(env, "ZE_FLAT_DEVICE_HIERARCHY");
  if (!h || h->empty()) return std::string("FLAT");
  if (*h == "FLAT" || *h == "COMPOSITE" || *h == "COMBINED") return *h;
  return Error::bad_input("gpus", "ZE_FLAT_DEVICE_HIERARCHY='" + *h +
                                      "': Level Zero takes FLAT, COMPOSITE or COMBINED");
}

Result<std::vector<const Device*>> level_zero_mask(ListReader& r, const Environment& env,
                                                   const std::vector<const Device*>& cards) {
  auto hierarchy = level_zero_hierarchy(env);
  if (!hierarchy) return hierarchy.error();
  const bool composite = *hierarchy == "COMPOSITE";
  // FLAT and COMBINED: every tile is a root device, numbered across the cards in bus order.
  std::vector<std::pair<const Device*, int>> roots;
  for (const Device* c : cards)
    for (int t = 0; t < (composite ? 1 : tiles_of(c)); ++t) roots.emplace_back(c, t);
  if (!composite && std::any_of(cards.begin(), cards.end(), [](auto* c) { return c->tiles == 0; }))
    r.out.notes.push_back("ZE_AFFINITY_MASK read under " + *hierarchy +
                          ": a card whose tiles the topology does not record counts as one");
  std::vector<const Device*> got;
  for (const std::string& e : split_list(r.out.value, ',')) {
    const size_t dot = e.find('.');
    const std::string root = e.substr(0, dot);
    if (!is_index(root)) return r.bad(e, "is not N or N.M");
    const size_t n = static_cast<size_t>(std::stoi(root));
    if (n >= roots.size())
      return r.bad(e, "is past the end: under " + *hierarchy + " there are " +
                          std::to_string(roots.size()) + " root devices (" +
                          range_text(roots.size()) +
                          (composite ? ", one per card)" : ", one per tile)"));
    if (dot != std::string::npos) {
      const std::string sub = e.substr(dot + 1);
      if (!composite)
        return r.bad(e, "names a sub-device, but under " + *hierarchy +
                            " each tile is a root device already: name tile devices by their "
                            "index, or set ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE");
      const Device* card = roots[n].first;
      if (!is_index(sub) || (card->tiles > 0 && std::stoi(sub) >= card->tiles))
        return r.bad(e, "names a tile card " + root + " does not have (it has " +
                            std::to_string(tiles_of(card)) + ")");
    }
    const Device* card = roots[n].first;
    if (std::find(got.begin(), got.end(), card) == got.end()) got.push_back(card);
  }
  if (got.empty())
    return Error::bad_input("gpus", "ZE_AFFINITY_MASK='' : the program would see no GPU");
  return got;
}

}  // namespace threadmap::cluster
