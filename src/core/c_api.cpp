// The C API: thin wrappers that turn Result/Status into 0 / -1 + errno + tm_last_error().
// Nothing may throw across this boundary.
#include <cerrno>
#include <cstring>
#include <string>

#include "threadmap/threadmap.h"
#include "threadmap/threadmap.hpp"

struct tm_cpuset {
  threadmap::CpuSet set;
};

namespace {

thread_local std::string last_error;

int fail(const threadmap::Error& error) {
  last_error = error.message;
  errno = error.code.value() ? error.code.value() : EINVAL;
  return -1;
}

int fail_errno(int e, const char* message) {
  last_error = message;
  errno = e;
  return -1;
}

int done(const threadmap::Status& st) {
  if (!st) return fail(st.error());
  last_error.clear();
  return 0;
}

// Runs a C API body; an allocation failure anywhere below (CpuSet, strings) becomes -1 with
// errno ENOMEM instead of an exception crossing the C ABI or an abort.
template <class Body>
int guarded(Body body) {
  try {
    return body();
  } catch (...) {
    return fail_errno(ENOMEM, "out of memory");
  }
}

}  // namespace

extern "C" {

tm_cpuset* tm_cpuset_new(void) {
  try {
    return new tm_cpuset();
  } catch (...) {
    errno = ENOMEM;
    return nullptr;
  }
}

void tm_cpuset_free(tm_cpuset* set) { delete set; }

int tm_cpuset_parse(tm_cpuset* set, const char* expression) {
  if (!set || !expression) return fail_errno(EINVAL, "NULL argument");
  try {
    auto topo = threadmap::Topology::load_this_machine();
    if (!topo) return fail(topo.error());
    auto parsed = topo->resolve(expression);
    if (!parsed) return fail(parsed.error());
    set->set = *parsed;
    return 0;
  } catch (...) {
    return fail_errno(ENOMEM, "out of memory");
  }
}

int tm_cpuset_add(tm_cpuset* set, int cpu) {
  if (!set || cpu < 0) return fail_errno(EINVAL, "bad CPU number");
  set->set.add(cpu);
  return 0;
}

int tm_cpuset_contains(const tm_cpuset* set, int cpu) {
  return set && set->set.contains(cpu) ? 1 : 0;
}

int tm_cpuset_count(const tm_cpuset* set) { return set ? static_cast<int>(set->set.count()) : 0; }

int tm_cpuset_format(const tm_cpuset* set, char* buf, size_t len) {
  if (!set || !buf || len == 0) return fail_errno(EINVAL, "NULL argument");
  try {
    std::string text = set->set.to_list();
    std::strncpy(buf, text.c_str(), len - 1);
    buf[len - 1] = '\0';
    if (text.size() >= len) return fail_errno(ERANGE, "buffer too small");
    return static_cast<int>(text.size());
  } catch (...) {
    return fail_errno(ENOMEM, "out of memory");
  }
}

int tm_allowed_cpus(tm_cpuset* out) {
  if (!out) return fail_errno(EINVAL, "NULL argument");
  return guarded([&] {
    auto allowed = threadmap::allowed_cpus();
    if (!allowed) return fail(allowed.error());
    out->set = *allowed;
    return 0;
  });
}

int tm_current_cpu(void) { return threadmap::current_cpu(); }
pid_t tm_current_tid(void) { return threadmap::current_tid(); }

int tm_pin_self(const tm_cpuset* cpus) {
  if (!cpus) return fail_errno(EINVAL, "NULL argument");
  return guarded([&] { return done(threadmap::pin_current_thread(cpus->set)); });
}

int tm_pin_self_expr(const char* expression) {
  if (!expression) return fail_errno(EINVAL, "NULL argument");
  try {
    return done(threadmap::pin_current_thread(std::string_view(expression)));
  } catch (...) {
    return fail_errno(ENOMEM, "out of memory");
  }
}

int tm_pin_thread(pthread_t thread, const tm_cpuset* cpus) {
  if (!cpus) return fail_errno(EINVAL, "NULL argument");
  return guarded([&] { return done(threadmap::pin_thread(thread, cpus->set)); });
}

int tm_pin_tid(pid_t tid, const tm_cpuset* cpus) {
  if (!cpus) return fail_errno(EINVAL, "NULL argument");
  return guarded([&] { return done(threadmap::pin_tid(tid, cpus->set)); });
}

int tm_unpin_self(void) {
  return guarded([] { return done(threadmap::unpin_current_thread()); });
}

int tm_get_affinity_tid(pid_t tid, tm_cpuset* out) {
  if (!out) return fail_errno(EINVAL, "NULL argument");
  return guarded([&] {
    auto r = tid == 0 ? threadmap::current_thread_affinity() : threadmap::tid_affinity(tid);
    if (!r) return fail(r.error());
    out->set = *r;
    return 0;
  });
}

const char* tm_last_error(void) { return last_error.c_str(); }

const char* tm_version(void) { return TM_VERSION_STRING; }

}  // extern "C"
