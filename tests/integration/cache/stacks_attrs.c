/* Attributes: a user-supplied stack is used as given, requested stack and guard sizes are
 * honoured, pthread_getattr_np reports the logical detach state, pthread_self matches the
 * handle the creator got. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "semantics.h"

struct seen {
  void *stack_addr;
  size_t stack_size;
  size_t guard;
  int detach;
  pthread_t self;
  uintptr_t local;
};

static void *observe(void *arg) {
  struct seen *s = arg;
  char here;
  pthread_attr_t a;
  pthread_getattr_np(pthread_self(), &a);
  pthread_attr_getstack(&a, &s->stack_addr, &s->stack_size);
  pthread_attr_getguardsize(&a, &s->guard);
  pthread_attr_getdetachstate(&a, &s->detach);
  pthread_attr_destroy(&a);
  s->self = pthread_self();
  s->local = (uintptr_t)&here;
  return NULL;
}

int main(void) {
  warm_cache();
  for (int round = 0; round < 3; ++round) {
    struct seen s;
    pthread_t t;
    pthread_create(&t, NULL, observe, &s);
    pthread_join(t, NULL);
    EXPECT(pthread_equal(s.self, t), "pthread_self equals the creator's handle");
    EXPECT(s.detach == PTHREAD_CREATE_JOINABLE, "getattr_np: joinable");

    size_t size = 1 << 20;
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, mem, size);
    pthread_create(&t, &attr, observe, &s);
    pthread_join(t, NULL);
    EXPECT(s.local >= (uintptr_t)mem && s.local < (uintptr_t)mem + size, "user stack is used");
    pthread_attr_destroy(&attr);
    munmap(mem, size);

    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 4 << 20);
    pthread_attr_setguardsize(&attr, 64 << 10);
    pthread_create(&t, &attr, observe, &s);
    pthread_join(t, NULL);
    EXPECT(s.stack_size >= (4u << 20), "requested stack size honoured");
    EXPECT(s.guard == (64u << 10), "requested guard size honoured");
    pthread_attr_destroy(&attr);
    settle();
  }
  return semantics_failures;
}
