// Fuzzes the workload spec parser: any input is accepted or refused with a one-line message.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/plan/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = threadmap::plan::parse_spec(text, "fuzz");
  if (!spec.ok()) {
    const std::string& m = spec.error().message;
    if (m.empty() || m.find('\n') != std::string::npos) std::abort();
  }
  return 0;
}
