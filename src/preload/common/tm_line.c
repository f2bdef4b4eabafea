/* write(2)-based line output shared by both preload libraries (see tm_line.h). */
/* tm_prim.h's calls (sched_getcpu, sched_setaffinity) are GNU extensions; the pin library
 * compiles this file without _GNU_SOURCE on its command line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "tm_line.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "tm_prim.h"

static char tm__tag[64];

void tm__line_set_tag(const char* tag) {
  size_t n = 0;
  while (tag && tag[n] && n + 1 < sizeof tm__tag) {
    tm__tag[n] = tag[n];
    ++n;
  }
  tm__tag[n] = '\0';
}

void tm__line_start(tm__line* line) {
  line->length = 0;
  tm__line_str(line, "threadmap: ");
  if (tm__tag[0]) {
    tm__line_str(line, tm__tag);
    tm__line_str(line, ": ");
  }
}

size_t tm__line_prefix_length(void) {
  size_t n = sizeof "threadmap: " - 1;
  if (tm__tag[0]) {
    size_t t = 0;
    while (tm__tag[t]) ++t;
    n += t + 2;
  }
  return n;
}

void tm__line_str(tm__line* line, const char* s) {
  while (s && *s && line->length + 1 < sizeof line->text) line->text[line->length++] = *s++;
}

void tm__line_long(tm__line* line, long long value) {
  char digits[24];
  int n = 0;
  unsigned long long v = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  if (value < 0) digits[n++] = '-';
  while (n > 0 && line->length + 1 < sizeof line->text) line->text[line->length++] = digits[--n];
}

void tm__line_cpus(tm__line* line, const unsigned long* mask, size_t words) {
  const long word_bits = (long)(sizeof(unsigned long) * CHAR_BIT);
  const long bits = (long)words * word_bits;
#define TM__BIT(i) ((mask[(i) / word_bits] >> ((i) % word_bits)) & 1UL)
  int first_item = 1;
  for (long cpu = 0; cpu < bits; ++cpu) {
    if (!TM__BIT(cpu)) continue;
    long last = cpu;
    while (last + 1 < bits && TM__BIT(last + 1)) ++last;
    if (!first_item) tm__line_str(line, ",");
    tm__line_long(line, cpu);
    if (last > cpu) {
      tm__line_str(line, "-");
      tm__line_long(line, last);
    }
    first_item = 0;
    cpu = last;
  }
#undef TM__BIT
  if (first_item) tm__line_str(line, "(none)");
}

void tm__line_emit(tm__line* line) {
  line->text[line->length++] = '\n';
  size_t done = 0; /* tm__prim_write retries EINTR and never touches errno */
  while (done < line->length) {
    long n = tm__prim_write(STDERR_FILENO, line->text + done, line->length - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
}
