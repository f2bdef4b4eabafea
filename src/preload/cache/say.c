/* Diagnostics without stdio or malloc: a fixed line buffer written with one write(2), so it is
 * safe on the exit path and cannot deadlock on a stdio lock held by the host program. */
#include <unistd.h>

#include "options.h"

void tm__line_str(struct tm_line *line, const char *s) {
  while (s && *s && line->len < sizeof line->text - 1) line->text[line->len++] = *s++;
}

void tm__line_int(struct tm_line *line, long long v) {
  char digits[24];
  int n = 0;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do {
    digits[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) digits[n++] = '-';
  while (n > 0 && line->len < sizeof line->text - 1) line->text[line->len++] = digits[--n];
}

void tm__line_emit(struct tm_line *line) {
  static const char prefix[] = "threadmap: ";
  char out[sizeof prefix + sizeof line->text + 1];
  size_t n = 0;
  for (size_t i = 0; i < sizeof prefix - 1; ++i) out[n++] = prefix[i];
  for (size_t i = 0; i < line->len; ++i) out[n++] = line->text[i];
  out[n++] = '\n';
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(2, out + done, n - done);
    if (w <= 0) return; /* nowhere to report a failing stderr */
    done += (size_t)w;
  }
}
