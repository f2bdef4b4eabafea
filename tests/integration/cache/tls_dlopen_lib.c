/* A module with TLS, loaded with dlopen by tls_dlopen.c (general-dynamic model: its block in a
 * thread is allocated when that thread first touches it). */
static __thread int lib_value = 5;
static __thread char lib_text[32] = "lib-initial";

int tls_lib_get(void) { return lib_value; }
const char *tls_lib_text(void) { return lib_text; }
void tls_lib_dirty(void) {
  lib_value = 99;
  lib_text[0] = 'X';
}
