#include "src/os/memory.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace threadmap::os {

void* map_anonymous(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap(void* address, std::size_t bytes) {
  if (address) munmap(address, bytes);
}

int numa_node_of(void* address) {
  // move_pages with no target nodes only reports where each page is: no libnuma needed.
  int status = -1;
  void* pages[1] = {address};
  if (syscall(SYS_move_pages, 0, 1UL, pages, nullptr, &status, 0) != 0) return -1;
  return status >= 0 ? status : -1;
}

}  // namespace threadmap::os
