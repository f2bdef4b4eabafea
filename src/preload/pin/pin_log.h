/* threadmap pin preload — output without stdio or allocation: a fixed buffer and write(2).
 * Safe to use inside the pthread_create wrapper and in freshly started threads. */
#ifndef THREADMAP_PRELOAD_PIN_LOG_H
#define THREADMAP_PRELOAD_PIN_LOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A line being built; text past the capacity is dropped (the line still ends in '\n'). */
typedef struct tm__line {
  char text[512];
  size_t length;
} tm__line;

/** Starts a line with the "threadmap: " prefix. */
void tm__line_start(tm__line* line);
/** Appends a NUL-terminated string. */
void tm__line_str(tm__line* line, const char* s);
/** Appends a signed decimal number. */
void tm__line_long(tm__line* line, long value);
/** Appends a CPU mask (unsigned long words, cpu_set_t layout) in list syntax, e.g. "0-3,8". */
void tm__line_cpus(tm__line* line, const unsigned long* mask, size_t words);
/** Appends '\n' and writes the line to stderr with write(2), retrying on EINTR. */
void tm__line_emit(tm__line* line);

#ifdef __cplusplus
}
#endif

#endif /* THREADMAP_PRELOAD_PIN_LOG_H */
