// Fuzzes CPU list and mask parsing: any input either fails with a message or gives a set whose
// printed form parses back to the same set.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "threadmap/cpuset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (auto parsed : {threadmap::CpuSet::parse(text), threadmap::CpuSet::parse_mask(text)}) {
    if (!parsed.ok()) {
      if (parsed.error().message.empty()) std::abort();
      continue;
    }
    if (parsed->empty()) continue;
    auto back = threadmap::CpuSet::parse_list(parsed->to_list());
    if (!back.ok() || !(*back == *parsed)) std::abort();
    auto mask = threadmap::CpuSet::parse_mask(parsed->to_mask());
    if (!mask.ok() || !(*mask == *parsed)) std::abort();
  }
  return 0;
}
