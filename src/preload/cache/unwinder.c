/* libgcc_s's unwinder, loaded at the first pthread_exit the cache runs itself, not linked: as a
 * dependency it cost every process that loads the cache a mapped library (~8 system calls and
 * ~25k instructions of the loader's at start-up, in every `true` and `sed` of a script), and
 * most never end a thread with pthread_exit. glibc does the same for its own pthread_exit and
 * cancellation (it dlopens libgcc_s at the first one), so both use the one copy: a process that
 * has libgcc_s already (every C++ program, through libstdc++) gets that one back from dlopen.
 *
 * once.c is compiled with -fexceptions (its cleanup must run as a landing pad of every unwind):
 * the compiler makes it call _Unwind_Resume and name __gcc_personality_v0, libgcc_s's. Both are
 * defined here, hidden, forwarding to libgcc_s's: they only run while something unwinds, which
 * means libgcc_s is loaded then. */
#include "unwinder.h"

#include <dlfcn.h>
#include <stddef.h>

typedef _Unwind_Reason_Code (*tm_forced_unwind_fn)(struct _Unwind_Exception *, _Unwind_Stop_Fn,
                                                   void *);
typedef _Unwind_Word (*tm_get_cfa_fn)(struct _Unwind_Context *);

static tm_forced_unwind_fn tm__forced;
static tm_get_cfa_fn tm__get_cfa;

/* libgcc_s's NAME, loading the library if LOAD (else NULL when it is not loaded). The handle
 * is never closed. */
static void *tm__libgcc_symbol(const char *name, int load) {
  void *lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == NULL && load) lib = dlopen("libgcc_s.so.1", RTLD_NOW);
  return lib ? dlsym(lib, name) : NULL;
}

/* 1 once both functions are known. */
static int tm__unwinder_load(void) {
  if (__atomic_load_n(&tm__forced, __ATOMIC_ACQUIRE) != NULL) return 1;
  void *lib = dlopen("libgcc_s.so.1", RTLD_NOW);
  if (lib == NULL) return 0;
  tm_forced_unwind_fn forced = (tm_forced_unwind_fn)dlsym(lib, "_Unwind_ForcedUnwind");
  tm_get_cfa_fn get_cfa = (tm_get_cfa_fn)dlsym(lib, "_Unwind_GetCFA");
  if (forced == NULL || get_cfa == NULL) return 0;
  __atomic_store_n(&tm__get_cfa, get_cfa, __ATOMIC_RELAXED);
  __atomic_store_n(&tm__forced, forced, __ATOMIC_RELEASE);
  return 1;
}

_Unwind_Reason_Code tm__forced_unwind(struct _Unwind_Exception *exc, _Unwind_Stop_Fn stop,
                                      void *param) {
  if (!tm__unwinder_load()) return _URC_FATAL_PHASE1_ERROR;
  return tm__forced(exc, stop, param);
}

_Unwind_Word tm__unwind_get_cfa(struct _Unwind_Context *context) {
  return __atomic_load_n(&tm__get_cfa, __ATOMIC_RELAXED)(context);
}

/* ---- what once.c's landing pads use ------------------------------------------------------- */

typedef _Unwind_Reason_Code (*tm_personality_fn)(int, _Unwind_Action, _Unwind_Exception_Class,
                                                 struct _Unwind_Exception *,
                                                 struct _Unwind_Context *);
static tm_personality_fn tm__personality;
static void (*tm__resume)(struct _Unwind_Exception *);

/* The personality of C frames with cleanups. Without libgcc_s's (an unwinder that is not
 * libgcc_s): the frame is passed over; for cancellation and pthread_exit once.c's old-style
 * cleanup buffer then does the cleanup's work. */
TM_HIDDEN _Unwind_Reason_Code __gcc_personality_v0(int version, _Unwind_Action actions,
                                                   _Unwind_Exception_Class exc_class,
                                                   struct _Unwind_Exception *exc,
                                                   struct _Unwind_Context *context) {
  tm_personality_fn fn = __atomic_load_n(&tm__personality, __ATOMIC_ACQUIRE);
  if (fn == NULL) {
    fn = (tm_personality_fn)tm__libgcc_symbol("__gcc_personality_v0", 0);
    if (fn == NULL) return _URC_CONTINUE_UNWIND;
    __atomic_store_n(&tm__personality, fn, __ATOMIC_RELEASE);
  }
  return fn(version, actions, exc_class, exc, context);
}

/* Reached from a landing pad once.c's personality chose, so libgcc_s is loaded. This frame has
 * no landing pad of its own: the unwind passes through it. Not exported (exports.map). */
void _Unwind_Resume(struct _Unwind_Exception *exc) {
  void (*fn)(struct _Unwind_Exception *) = __atomic_load_n(&tm__resume, __ATOMIC_ACQUIRE);
  if (fn == NULL) {
    *(void **)&fn = tm__libgcc_symbol("_Unwind_Resume", 1);
    __atomic_store_n(&tm__resume, fn, __ATOMIC_RELEASE);
  }
  fn(exc);
  __builtin_unreachable();
}
