#include "src/os/node_memory.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "src/os/memory.hpp"

namespace threadmap::os {

Result<void*> map_on_node(std::size_t bytes, int node) {
  constexpr int kWordBits = static_cast<int>(sizeof(unsigned long) * 8);
  unsigned long mask[16] = {};  // 1024 nodes
  if (node < 0 || node >= kWordBits * 16)
    return Error::invalid("NUMA node " + std::to_string(node) + " is out of range");
  mask[node / kWordBits] = 1UL << (node % kWordBits);
  void* p = map_anonymous(bytes);
  if (!p) return Error::from_errno(errno, "cannot map " + std::to_string(bytes) + " bytes");
  constexpr long kMpolBind = 2;
  // maxnode is one more than the mask's bits: the kernel drops the last bit (as libnuma does).
  if (syscall(SYS_mbind, p, bytes, kMpolBind, mask, 16UL * kWordBits + 1, 0UL) != 0) {
    int e = errno;
    unmap(p, bytes);
    return Error::from_errno(
        e, "cannot bind memory to NUMA node " + std::to_string(node) + ": " + std::strerror(e));
  }
  std::memset(p, 1, bytes);
  for (void* page : {p, static_cast<void*>(static_cast<char*>(p) + bytes - 1)}) {
    int where = numa_node_of(page);
    if (where >= 0 && where != node) {
      unmap(p, bytes);
      return Error::from_errno(EIO, "memory bound to NUMA node " + std::to_string(node) +
                                        " landed on node " + std::to_string(where));
    }
  }
  return p;
}

}  // namespace threadmap::os
