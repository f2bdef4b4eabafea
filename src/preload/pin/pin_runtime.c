/* threadmap pin preload — start-up: the options, the real functions, the rules (TM_PIN_CONFIG,
 * read into one mmap'd arena), the main thread's pin and memory policy, and what the programs
 * this one execs get (pin_environment.c). Runs once, from the constructor or the first
 * wrapper. */
#define _GNU_SOURCE
#include "pin_runtime.h"

#include <dlfcn.h>
#include <stdlib.h>

#include "../common/tm_options.h"
#include "../common/tm_prim.h"
#include "pin_log.h"
#include "pin_view.h"

tm__runtime tm__rt;

static pthread_once_t tm__init_once = PTHREAD_ONCE_INIT;

/* The pin library's integer options (TM_PIN_CONFIG, a string, is parsed by pin_config.c). */
enum { TM_PIN_OPT_VERBOSE, TM_PIN_OPT_SHARE_VIEW, TM_PIN_OPT_COUNT };
static struct tm__option tm__pin_options[TM_PIN_OPT_COUNT] = {
    [TM_PIN_OPT_VERBOSE] = {"TM_VERBOSE", 0, 0, 1, "print the configuration and each pin", 0, 0},
    [TM_PIN_OPT_SHARE_VIEW] = {"TM_PIN_SHARE_VIEW", 1, 0, 1,
                               "1: the program sees its share where it reads its affinity "
                               "(pin_view.h); 0: each thread's own mask, the main thread pinned "
                               "before main() (xthi-style placement checks)",
                               0, 0},
};

void tm__pin_report(const char* a, const char* b) {
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, a);
  if (b) tm__line_str(&line, b);
  tm__line_emit(&line);
}

/* Parses TM_PIN_CONFIG into an mmap'd arena. Returns 1 when rules are active. */
static int read_config(const char* text) {
  char error[256];
  size_t needed = 0;
  if (tm__pin_config_parse(text, NULL, 0, &needed, NULL, error, sizeof error) != 0) {
    tm__pin_report(error, "; running unpinned");
    return 0;
  }
  void* arena = tm__prim_map(needed);
  if (arena == NULL) {
    tm__pin_report("cannot map memory for TM_PIN_CONFIG", "; running unpinned");
    return 0;
  }
  if (tm__pin_config_parse(text, arena, needed, NULL, &tm__rt.config, error, sizeof error) != 0) {
    tm__pin_report(error, "; running unpinned");
    tm__prim_unmap(arena, needed);
    return 0;
  }
  return 1;
}

static void print_config(void) {
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "pin: config: ");
  tm__line_long(&line, (long)tm__rt.config.slot_count);
  tm__line_str(&line, " slot rules, ");
  tm__line_long(&line, (long)tm__rt.config.cycle_count);
  tm__line_str(&line, " cycle sets, ");
  tm__line_long(&line, (long)tm__rt.config.pattern_count);
  tm__line_str(&line, " name/lib rules, main ");
  tm__line_str(&line, tm__rt.config.main_set >= 0 ? "pinned" : "not pinned");
  /* What happens across exec without --inherit: a wrapper (env, sh -c, a script) passes the
   * rules on; the program that creates threads keeps them, and what it starts afterwards gets
   * none but starts on the CPUs of the thread that forked it (the kernel carries that mask). */
  tm__line_str(&line, tm__rt.config.inherit
                          ? ", exec'd programs keep these rules"
                          : ", passed on to what this program execs until it creates a thread "
                            "(then its children get none; --inherit: they do)");
  if (tm__rt.config.from_pid > 0) {
    tm__line_str(&line, "; passed on by pid ");
    tm__line_long(&line, tm__rt.config.from_pid);
  }
  tm__line_emit(&line);
}

static void init_once(void) {
  extern char** environ;
  /* Under `run --ranks` every line says which host/rank it comes from (read before the
   * environment is cleaned for exec'd programs). */
  tm__line_set_tag(getenv("TM_LINE_TAG"));
  tm__options_read(tm__pin_options, TM_PIN_OPT_COUNT, environ, "pin");
  tm__rt.verbose = (int)tm__pin_options[TM_PIN_OPT_VERBOSE].value;
  tm__rt.share_view = (int)tm__pin_options[TM_PIN_OPT_SHARE_VIEW].value;
  if (tm__rt.verbose) tm__options_show(tm__pin_options, TM_PIN_OPT_COUNT, "pin");
  /* Our pid, read once: the rules passed on name it, and it tells an exec from a child. */
  tm__rt.init_pid = tm__prim_getpid();
  tm__rt.real_create = (tm__create_fn)dlsym(RTLD_NEXT, "pthread_create");
  tm__rt.real_setname = (tm__setname_fn)dlsym(RTLD_NEXT, "pthread_setname_np");
  if (!tm__rt.real_create || !tm__rt.real_setname) {
    tm__pin_report("pin: cannot find the real pthread_create/pthread_setname_np",
                   "; running unpinned");
    return;
  }
  if (tm__prim_getaffinity_bytes(tm__rt.original, sizeof tm__rt.original) == 0)
    tm__rt.original_bytes = sizeof tm__rt.original;

  const char* text = getenv("TM_PIN_CONFIG");
  int active = text ? read_config(text) : 0;
  if (!text && tm__rt.verbose)
    tm__pin_report("pin: TM_PIN_CONFIG is not set; running unpinned", NULL);
  if (active && !tm__rt.config.inherit && tm__handed_by_threaded_program(tm__rt.config.from_pid)) {
    /* The child of the program that runs the threads, started with an old copy of its
     * environment: runs unpinned, as without that copy. */
    if (tm__rt.verbose) {
      tm__line line;
      tm__line_start(&line);
      tm__line_str(&line, "pin: the rules came from pid ");
      tm__line_long(&line, tm__rt.config.from_pid);
      tm__line_str(&line, ", which runs threads (they are its): this program runs unpinned");
      tm__line_emit(&line);
    }
    active = 0;
  }
  if (active && tm__rt.verbose) print_config();
  if (!active) {
    tm__forget_environment();
    return;
  }
  tm__rt.active = 1;
  tm__pass_on_environment(text);
  tm__view_init();
  /* The main thread runs on the whole share until its first thread (pin_view.h says why). */
  if (tm__rt.config.main_set >= 0 && !tm__view_share_main()) {
    tm__decision main_decision = {TM__ACTION_SET, tm__rt.config.main_set, "main rule"};
    tm__apply_to_self(&main_decision, "main thread", -1, NULL);
  }
  /* The main thread's policy, before main() allocates anything. Threads inherit it, and each
   * created thread sets its own again in the start wrapper (pin_start.c). */
  tm__mem_decision memory = tm__decide_memory(&tm__rt.config, tm__rt.config.main_mem_node);
  tm__apply_memory(&memory, "main thread", -1);
}

void tm__runtime_init(void) { pthread_once(&tm__init_once, init_once); }

/* Runs before main() (and before the program's own constructors), so the main thread is pinned
 * before it touches its memory. */
__attribute__((constructor)) static void tm__constructor(void) { tm__runtime_init(); }
