/* threadmap pin preload — the exported wrappers, and nothing else (see pin_runtime.h for the
 * work). The version script (exports.map) exports exactly these symbols. */
#define _GNU_SOURCE
#include <pthread.h>

#include "pin_runtime.h"

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
