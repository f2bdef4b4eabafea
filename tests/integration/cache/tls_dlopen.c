/* TLS of libraries loaded with dlopen starts from its image in every new thread, whichever
 * thread first touched it and whenever the library was loaded: the cache keeps a per-thread list
 * of the blocks it rewrites (reset.c), which must notice a module loaded after the list was made
 * and a block allocated after it (dynamic TLS is allocated on first touch). TLS_LIB is the
 * module's path, loaded twice under different names (a second copy is a second module). */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <string.h>

#include "semantics.h"

struct lib {
  int (*get)(void);
  const char *(*text)(void);
  void (*dirty)(void);
};

struct visit {
  const struct lib *lib;
  int touch; /* 0: do not touch the library's TLS at all */
  int value;
  char text[32];
};

static void *visit(void *arg) {
  struct visit *v = arg;
  if (!v->touch) return NULL;
  v->value = v->lib->get();
  strncpy(v->text, v->lib->text(), sizeof v->text - 1);
  v->lib->dirty();
  return NULL;
}

static int load(const char *path, struct lib *lib) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    printf("dlopen %s: %s\n", path, dlerror());
    return -1;
  }
  *(void **)&lib->get = dlsym(h, "tls_lib_get");
  *(void **)&lib->text = dlsym(h, "tls_lib_text");
  *(void **)&lib->dirty = dlsym(h, "tls_lib_dirty");
  return lib->get && lib->text && lib->dirty ? 0 : -1;
}

/* Runs one thread on `lib` and checks what it saw. */
static void round_on(const struct lib *lib, int touch, const char *what) {
  struct visit v = {lib, touch, 0, {0}};
  pthread_t t;
  if (pthread_create(&t, NULL, visit, &v) != 0 || pthread_join(t, NULL) != 0) {
    printf("FAIL create/join (%s)\n", what);
    semantics_failures++;
    return;
  }
  if (touch) {
    EXPECT(v.value == 5, what);
    EXPECT(strcmp(v.text, "lib-initial") == 0, what);
  }
  settle();
}

int main(void) {
  warm_cache();
  struct lib first, second;
  if (load(TLS_LIB, &first) != 0) return 1;
  /* Threads that never touch the library: their blocks stay unallocated. */
  for (int i = 0; i < 3; ++i) round_on(&first, 0, "untouched");
  for (int i = 0; i < 4; ++i) round_on(&first, 1, "library TLS starts from its image");
  /* A second module appears after the lists were made. */
  if (load(TLS_LIB_COPY, &second) != 0) return 1;
  for (int i = 0; i < 4; ++i) {
    round_on(&second, 1, "TLS of a library loaded later starts from its image");
    round_on(&first, 1, "the first library's TLS still starts from its image");
  }
  return semantics_failures;
}
