/* once_no_unwind.c: a pthread_once routine without unwind tables (see there). */
#ifndef THREADMAP_TESTS_CACHE_ONCE_NO_UNWIND_H
#define THREADMAP_TESTS_CACHE_ONCE_NO_UNWIND_H

/* Set when the routine runs, and when the runner's own cleanup handler ran. */
extern _Atomic int no_unwind_started, no_unwind_cleanup_ran;
/* Thread function: pthread_once(WORD, a routine that waits at a cancellation point forever). */
void *no_unwind_runner(void *word);

#endif
