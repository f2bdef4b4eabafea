/* Fuzzes the thread cache's TM_CACHE_* option reader, which runs inside programs we were asked to
 * help (a crash there crashes them): the input is split at newlines into NAME=value strings, as
 * the environment would hold them. Bad values must be reported and replaced by defaults. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = malloc(size + 1);
  char* env[64];
  int count = 0;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  for (char* line = text; line && count < 63;) {
    char* next = strchr(line, '\n');
    if (next) *next++ = 0;
    env[count++] = line;
    line = next;
  }
  env[count] = NULL;
  tm__options_load(env);
  for (int id = 0; id < TM_OPT_COUNT; ++id) (void)tm__option((enum tm_option_id)id);
  free(text);
  return 0;
}
