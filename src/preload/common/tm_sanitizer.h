/* Whether a sanitizer runtime (ASan, TSan, MSan) is loaded in this process: both preload
 * libraries then leave thread creation to the runtime's interceptors where they must. Looked up
 * once with dlsym(RTLD_DEFAULT) and remembered; uninstrumented, so it is safe while a runtime
 * starts up. */
#ifndef THREADMAP_PRELOAD_COMMON_TM_SANITIZER_H
#define THREADMAP_PRELOAD_COMMON_TM_SANITIZER_H

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* 1 if a sanitizer runtime is loaded, else 0. */
TM_HIDDEN int tm__sanitizer_present(void) __attribute__((no_sanitize_thread));

#endif
