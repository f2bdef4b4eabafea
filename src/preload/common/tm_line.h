/* Output of both preload libraries (libthreadmap-cache.so, libthreadmap-pin.so) without stdio
 * or allocation: a fixed line buffer written with write(2), so it is safe in pthread_create
 * wrappers, freshly started threads, and on the exit path, and cannot deadlock on a stdio lock
 * the host program holds. */
#ifndef THREADMAP_PRELOAD_COMMON_TM_LINE_H
#define THREADMAP_PRELOAD_COMMON_TM_LINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TM_HIDDEN
#define TM_HIDDEN __attribute__((visibility("hidden")))
#endif

/** A line being built; text past the capacity is dropped (one byte stays for the '\n'). */
typedef struct tm__line {
  char text[512];
  size_t length;
} tm__line;

/** Starts a line with the "threadmap: " prefix, then the tag when one is set. */
TM_HIDDEN void tm__line_start(tm__line* line);
/** Sets the tag every line carries after "threadmap: " ("host/rank" under `run --ranks`, as
 * mpirun --report-bindings prefixes its lines); NULL or "" clears it. Copied (63 bytes at most);
 * call it once, before any thread prints. */
TM_HIDDEN void tm__line_set_tag(const char* tag);
/** Length of what tm__line_start writes. */
TM_HIDDEN size_t tm__line_prefix_length(void);
/** Appends a NUL-terminated string (NULL appends nothing). */
TM_HIDDEN void tm__line_str(tm__line* line, const char* s);
/** Appends a signed decimal number. */
TM_HIDDEN void tm__line_long(tm__line* line, long long value);
/** Appends a CPU mask (unsigned long words, cpu_set_t layout) in list syntax, e.g. "0-3,8". */
TM_HIDDEN void tm__line_cpus(tm__line* line, const unsigned long* mask, size_t words);
/** Appends '\n' and writes the line to stderr with write(2): EINTR is retried, errno is left
 * as the caller had it, a failing stderr is ignored (there is nowhere to report it). */
TM_HIDDEN void tm__line_emit(tm__line* line);

#ifdef __cplusplus
}
#endif

#endif
