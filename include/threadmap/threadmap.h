/* threadmap — C API (stable ABI).
 *
 * Every function returns 0 on success, or -1 with errno set; tm_last_error() then returns a
 * one-line message for a person (thread-local, valid until the next threadmap call on the same
 * thread). CPU numbers are OS CPU numbers (what taskset and /proc use).
 *
 * errno values used throughout:
 *   EINVAL  bad argument: malformed expression, empty set, CPU outside the allowed set
 *   ESRCH   no such thread or process
 *   EPERM   not permitted to change that thread (other user without CAP_SYS_NICE)
 *   ENOMEM  out of memory
 *   ERANGE  output buffer too small (tm_cpuset_format)
 */
#ifndef THREADMAP_THREADMAP_H
#define THREADMAP_THREADMAP_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* TM_VERSION_MAJOR, _MINOR, _PATCH and _STRING, generated from the build's project version. */
#include "threadmap/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque set of OS CPU numbers, any size. */
typedef struct tm_cpuset tm_cpuset;

/** Allocates an empty set. Returns NULL with errno = ENOMEM on failure. */
tm_cpuset* tm_cpuset_new(void);
/** Frees a set; NULL is accepted. */
void tm_cpuset_free(tm_cpuset* set);
/** Replaces `set` with the CPUs of `expression`, resolved on this machine: a list ("0-3,8"),
 *  a mask ("0xff"), "all" or locations ("core:0-1", "l3:0"). EINVAL on a bad expression, in
 *  which case `set` is unchanged. */
int tm_cpuset_parse(tm_cpuset* set, const char* expression);
/** Adds one CPU. EINVAL when cpu < 0. */
int tm_cpuset_add(tm_cpuset* set, int cpu);
/** Returns 1 when `cpu` is in the set, 0 otherwise (also for NULL). */
int tm_cpuset_contains(const tm_cpuset* set, int cpu);
/** Number of CPUs in the set (0 for NULL). */
int tm_cpuset_count(const tm_cpuset* set);
/** Writes the set in list syntax ("0-3,8") into buf. Returns the length without the NUL, or -1
 *  with ERANGE when `len` is too small (the output is then truncated but NUL-terminated). */
int tm_cpuset_format(const tm_cpuset* set, char* buf, size_t len);

/** Fills `out` with the CPUs this process may use (cgroup cpuset AND startup affinity). */
int tm_allowed_cpus(tm_cpuset* out);
/** CPU the calling thread runs on now, or -1 with errno set. */
int tm_current_cpu(void);
/** Kernel thread id of the calling thread. */
pid_t tm_current_tid(void);

/** Pins the calling thread. EINVAL when empty or not a subset of tm_allowed_cpus(). */
int tm_pin_self(const tm_cpuset* cpus);
/** Pins the calling thread to an expression resolved on this machine ("core:2", "4-5"). */
int tm_pin_self_expr(const char* expression);
/** Pins a thread of this process. */
int tm_pin_thread(pthread_t thread, const tm_cpuset* cpus);
/** Pins any thread by kernel thread id (same checks as tm_pin_self). */
int tm_pin_tid(pid_t tid, const tm_cpuset* cpus);
/** Gives the calling thread the whole allowed set back. */
int tm_unpin_self(void);
/** Reads the affinity of a thread by kernel thread id (0 = calling thread) into `out`. */
int tm_get_affinity_tid(pid_t tid, tm_cpuset* out);

/** Message describing the last failure on this thread ("" when none). */
const char* tm_last_error(void);

/** "MAJOR.MINOR.PATCH" of the library linked at run time (TM_VERSION_STRING is that of the
 *  headers a program was compiled with). Never fails; the string is static. */
const char* tm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* THREADMAP_THREADMAP_H */
