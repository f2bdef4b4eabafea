/* Fuzzes the preload configuration parser the way the pin library uses it: size the arena,
 * parse into it, then take every kind of decision the wrapper takes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pin_config.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  size_t needed = 0;
  tm__pin_config config;
  char error[256];
  if (tm__pin_config_parse(text, NULL, 0, &needed, &config, error, sizeof error) == 0 &&
      needed < (1u << 24)) {
    void* arena = malloc(needed ? needed : 1);
    if (arena &&
        tm__pin_config_parse(text, arena, needed, &needed, &config, error, sizeof error) == 0) {
      for (long i = 0; i < 8; ++i) {
        tm__decision d = tm__decide_created(&config, i, i % 2 ? "libgomp.so.1" : NULL);
        if (d.action == TM__ACTION_SET) (void)tm__pin_config_set_has(&config, d.set, (int)i);
        (void)tm__decide_slot(&config, i);
      }
      (void)tm__decide_name(&config, "worker-3");
    }
    free(arena);
  }
  (void)tm__glob_match(text, "worker-3");
  free(text);
  return 0;
}
