/* The key that notices the main thread's end (main_key.c). */
#ifndef THREADMAP_CACHE_MAIN_KEY_H
#define THREADMAP_CACHE_MAIN_KEY_H

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Deletes the key, so that the program can have all PTHREAD_KEYS_MAX keys; 1 if it was ours to
 * give. */
TM_HIDDEN int tm__give_up_main_key(void);
/* Makes the key, once, when called from the main thread (its first cached create). */
TM_HIDDEN void tm__arm_main_key(void);
TM_HIDDEN int tm__main_key_armed_already(void);
/* Start-up: remembers the thread it runs in (the main thread: main_key.c). */
TM_HIDDEN void tm__startup_thread_remember(void);
/* The first create: remembers the main thread when the caller is it. */
TM_HIDDEN void tm__main_thread_remember(void);
/* Fork child: the forking thread is the child's main thread. */
TM_HIDDEN void tm__main_key_after_fork(void);

#endif
