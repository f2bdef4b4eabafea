// Pins itself to the first allowed CPU through the C++ API and checks where it runs.
#include <cstdio>
#include <threadmap/threadmap.hpp>

int main() {
  auto allowed = threadmap::allowed_cpus();
  if (!allowed) return std::fprintf(stderr, "%s\n", allowed.error().message.c_str()), 1;
  threadmap::CpuSet one{allowed->first()};
  if (auto st = threadmap::pin_current_thread(one); !st)
    return std::fprintf(stderr, "%s\n", st.error().message.c_str()), 1;
  auto topo = threadmap::Topology::load_this_machine();
  if (!topo) return 1;
  std::printf("c++ consumer: %d PUs, pinned to %s, running on %d\n", topo->counts().pus,
              one.to_list().c_str(), threadmap::current_cpu());
  return threadmap::current_cpu() == one.first() ? 0 : 1;
}
