/* The bound on finished, not yet joined threads that keep their kernel task (thread.c), from the
 * task headroom the process really has (headroom.c). */
#ifndef THREADMAP_CACHE_HEADROOM_H
#define THREADMAP_CACHE_HEADROOM_H

#include "options.h"

/* The bound's floor and cap, and the share of the smallest headroom it may take. */
#define TM_UNJOINED_FLOOR 8
#define TM_UNJOINED_CAP 1024
#define TM_UNJOINED_SHARE 8 /* bound = headroom / 8 */

/* Reads which bounds the environment fixed (after tm__options_load). TM_CACHE_MAX_UNJOINED set
 * in the environment wins and is never measured; otherwise the headroom is measured when a
 * bound is neared (headroom.c), not here. */
TM_HIDDEN void tm__headroom_init(void);
/* The current bound (one relaxed load). */
TM_HIDDEN long long tm__unjoined_bound(void);
/* Most parked threads: TM_CACHE_MAX_IDLE when set in the environment, else the larger of its
 * default (64) and the unjoined bound, so a batch the process could keep unjoined can also
 * park once joined (otherwise a batch of 100 std::async tasks loses 36 threads per round).
 * Kept kernel tasks are then at most 2/8 of the headroom. */
TM_HIDDEN long long tm__idle_bound(void);
/* Called with the current count of finished, unjoined threads: measures again when the count
 * has crossed 3/4 of the bound and the last measurement is older than 50 ms, so a process that
 * nears the bound sees what other processes took meanwhile (and may get a larger bound). */
TM_HIDDEN void tm__headroom_maybe_refresh(long long unjoined_now);
/* The bound for the headroom figures given (unit-testable): -1 means "no limit" for each. */
TM_HIDDEN long long tm__bound_from_headroom(long long pid_room, long long nproc_room,
                                            long long cgroup_room);

#endif
