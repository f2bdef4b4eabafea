/* threadmap pin preload — applying memory policies (set_mempolicy in each thread; `--mem` and a
 * plan's memory nodes, docs/run-and-watch.md "Memory with the threads"). */
#define _GNU_SOURCE
#include <string.h>

#include "../common/tm_prim.h"
#include "pin_log.h"
#include "pin_runtime.h"

static const char* mem_mode_name(int mode) {
  switch (mode) {
    case TM__MEM_DEFAULT:
      return "default";
    case TM__MEM_PREFERRED:
      return "preferred";
    case TM__MEM_BIND:
      return "bind";
    case TM__MEM_INTERLEAVE:
      return "interleave";
    case TM__MEM_LOCAL:
      return "local";
  }
  return "?";
}

/* "bind nodes 0-1" / "local" into `line`. */
static void describe_memory(tm__line* line, const tm__mem_decision* d, const unsigned long* mask,
                            size_t words) {
  tm__line_str(line, mem_mode_name(d->mode));
  if (mask) {
    tm__line_str(line, " node(s) ");
    tm__line_cpus(line, mask, words);
  }
}

void tm__apply_memory(const tm__mem_decision* d, const char* label, long index) {
  if (d->mode == TM__MEM_UNSET) return;
  /* The mask covers the highest node the configuration names (threadmap checked every node
   * against the machine's before writing it); the kernel accepts a mask shorter than its node
   * count. maxnode is one more than the mask's bits: the kernel drops the last bit (libnuma
   * passes size + 1 for the same reason). */
  unsigned long one[TM_PIN_NODE_WORDS];
  const unsigned long* mask = NULL;
  int max_node = -1;
  if (d->node >= 0) {
    memset(one, 0, sizeof one);
    one[(size_t)d->node / (sizeof(unsigned long) * 8)] |=
        1UL << ((size_t)d->node % (sizeof(unsigned long) * 8));
    mask = one;
    max_node = d->node;
  } else if (d->mode != TM__MEM_LOCAL && d->mode != TM__MEM_DEFAULT) {
    mask = tm__rt.config.mem_nodes;
    max_node = tm__rt.config.mem_max_node;
  }
  size_t words = mask ? (size_t)max_node / (sizeof(unsigned long) * 8) + 1 : 0;
  unsigned long maxnode = mask ? (unsigned long)(words * sizeof(unsigned long) * 8 + 1) : 0;
  int error = -tm__prim_set_mempolicy_seen(d->mode, mask, maxnode);
  if (error != 0) {
    /* Never fatal: the program runs with the policy it had. Once, unless TM_VERBOSE. */
    if (atomic_exchange(&tm__rt.mem_failure_reported, 1) != 0 && !tm__rt.verbose) return;
    tm__line line;
    tm__line_start(&line);
    tm__line_str(&line, "pin: cannot set the memory policy of ");
    tm__describe_thread(&line, label, index, NULL);
    tm__line_str(&line, " to ");
    describe_memory(&line, d, mask, words);
    tm__line_str(&line, ": ");
    const char* why = strerrordesc_np(error);
    tm__line_str(&line, why ? why : "error");
    tm__line_str(&line, "; it keeps its current policy (later failures are not reported)");
    tm__line_emit(&line);
    return;
  }
  if (!tm__rt.verbose) return;
  tm__line line;
  tm__line_start(&line);
  tm__line_str(&line, "pin: memory of ");
  tm__describe_thread(&line, label, index, NULL);
  tm__line_str(&line, " tid ");
  tm__line_long(&line, tm__prim_gettid());
  tm__line_str(&line, " -> ");
  describe_memory(&line, d, mask, words);
  tm__line_str(&line, " (");
  tm__line_str(&line, d->reason);
  tm__line_str(&line, ")");
  tm__line_emit(&line);
}
