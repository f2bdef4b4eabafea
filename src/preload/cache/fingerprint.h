/* The readable part of what clone copies, hashed, for TM_CACHE_VERIFY_MS=0 ("check everything
 * on every use"): catches what no wrapper sees, an inline-assembly system call (credentials,
 * capabilities, namespaces, seccomp, ioprio, personality, memory policy, rseq registration) or
 * another process moving one of our threads to another cgroup. About 20 system calls per
 * reading: taken by the creator at every create that may reuse (a parked thread serves it only
 * when its fingerprint is the creator's) and by the worker at every logical exit (a thread
 * whose fingerprint moved retires). Without TM_CACHE_VERIFY_MS=0 nothing here runs. Not read:
 * a Landlock domain (the kernel shows none). */
#ifndef THREADMAP_CACHE_FINGERPRINT_H
#define THREADMAP_CACHE_FINGERPRINT_H

#include "tm_cache.h"

/* The calling thread's fingerprint now. */
TM_HIDDEN uint64_t tm__fingerprint_read(void);
/* T starts a logical thread with the calling (creating) thread's state: T->fingerprint. */
TM_HIDDEN void tm__fingerprint_take(struct tm_thread *t);
/* 1 when the calling worker T's state still has the fingerprint it started with. */
TM_HIDDEN int tm__fingerprint_matches(struct tm_thread *t);

#endif
