// Fuzzes the latency matrix loader (threadmap JSON, square CSV, nviennot's CSV, detected from the
// text): `latency --load`, `plan --latency` and `report --latency` read files users pass around.
// Any input must give a matrix or an error, never a crash, a hang or a huge allocation.
#include <cstdint>
#include <string>

#include "src/latency/matrix.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  threadmap::latency::MatrixFormat format;
  auto m = threadmap::latency::parse_matrix_text(text, "fuzz", &format);
  if (m) {
    // A loaded matrix is square and its cells are finite or NaN (not measured).
    const size_t n = m->cpus.size();
    if (m->one_way_ns.size() != n * n) __builtin_trap();
  }
  return 0;
}
