/* Start-up (startup.c), the top of the library: every wrapper calls tm__init first. */
#ifndef THREADMAP_CACHE_STARTUP_H
#define THREADMAP_CACHE_STARTUP_H

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Runs start-up once (the constructor, or the first interposed call); returns when it is done. */
TM_HIDDEN void tm__init(void);
/* The first create (with the cache on): what only a thread-creating process needs. */
TM_HIDDEN void tm__init_threads(void);
/* Re-reads glibc's default thread attributes (after pthread_setattr_default_np). */
TM_HIDDEN void tm__defaults_reread(void);

#endif
