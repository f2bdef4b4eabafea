/* write(2)-based line output for the pin preload (see pin_log.h). */
#include "pin_log.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

void tm__line_start(tm__line* line) {
  line->length = 0;
  tm__line_str(line, "threadmap: ");
}

void tm__line_str(tm__line* line, const char* s) {
  /* Keep one byte for the final '\n'. */
  while (*s && line->length + 1 < sizeof line->text) line->text[line->length++] = *s++;
}

void tm__line_long(tm__line* line, long value) {
  char digits[24];
  int n = 0;
  unsigned long v = value < 0 ? 0UL - (unsigned long)value : (unsigned long)value;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  if (value < 0) tm__line_str(line, "-");
  char out[24];
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = '\0';
  tm__line_str(line, out);
}

void tm__line_cpus(tm__line* line, const unsigned long* mask, size_t words) {
  const long bits = (long)(words * sizeof(unsigned long) * CHAR_BIT);
  int first_item = 1;
  for (long cpu = 0; cpu < bits; ++cpu) {
    if (!((mask[cpu / (long)(sizeof(unsigned long) * CHAR_BIT)] >>
           (cpu % (long)(sizeof(unsigned long) * CHAR_BIT))) & 1UL))
      continue;
    long last = cpu;
    while (last + 1 < bits && ((mask[(last + 1) / (long)(sizeof(unsigned long) * CHAR_BIT)] >>
                                ((last + 1) % (long)(sizeof(unsigned long) * CHAR_BIT))) & 1UL))
      ++last;
    if (!first_item) tm__line_str(line, ",");
    tm__line_long(line, cpu);
    if (last > cpu) {
      tm__line_str(line, "-");
      tm__line_long(line, last);
    }
    first_item = 0;
    cpu = last;
  }
  if (first_item) tm__line_str(line, "(none)");
}

void tm__line_emit(tm__line* line) {
  line->text[line->length++] = '\n';
  size_t done = 0;
  int saved_errno = errno; /* never disturb the host's errno */
  while (done < line->length) {
    ssize_t n = write(STDERR_FILENO, line->text + done, line->length - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  errno = saved_errno;
}
