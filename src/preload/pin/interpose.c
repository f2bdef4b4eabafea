/* threadmap pin preload — the exported wrappers, and nothing else (see pin_runtime.h for the
 * work). The version script (exports.map) exports exactly these symbols. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>

#include "pin_runtime.h"
#include "pin_view.h"

#define TM_EXPORT __attribute__((visibility("default")))

/* Interposes pthread_create: the new thread starts in a wrapper that pins it (per the rules in
 * TM_PIN_CONFIG) before `start` runs. Returns what the real pthread_create returns; EAGAIN when
 * the real one cannot be found. */
TM_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                             void* arg) {
  return tm__create_thread(thread, attr, start, arg);
}

/* Interposes pthread_setname_np: names the thread, then applies the first matching name rule
 * (name rules win over creation-order rules). Returns what the real one returns. */
TM_EXPORT int pthread_setname_np(pthread_t thread, const char* name) {
  return tm__setname_thread(thread, name);
}

/* Interposes glibc's affinity queries: a thread the pinner narrowed answers with the share, the
 * CPUs the program was given, as under `taskset -c SHARE` (pin_view.h). The kernel's answer
 * otherwise; the return values and errors are glibc's. */
TM_EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
  return tm__view_sched_getaffinity(pid, size, set);
}

TM_EXPORT int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t* set) {
  return tm__view_pthread_getaffinity(thread, size, set);
}

/* Interposes the setters, only to learn that the program set a mask itself: from then on that
 * thread reports what it set. The call itself goes on unchanged (to the thread cache when it is
 * preloaded, then glibc). */
TM_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  return tm__view_sched_setaffinity(pid, size, set);
}

TM_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* set) {
  return tm__view_pthread_setaffinity(thread, size, set);
}

/* Interposes syscall(2) for the same two calls (pin_view.c); every other number passes through.
 * Six arguments are always read, as glibc's own syscall(2) does: the sixth comes from the
 * caller's stack even when the caller passed fewer, which ASan would report (harmless: the value
 * is passed on, and the kernel ignores arguments a call does not have). */
TM_EXPORT __attribute__((no_sanitize_address)) long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  return tm__view_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
