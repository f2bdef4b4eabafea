/* Stress: many creator threads loop create+join/detach with random stack sizes until a cycle
 * budget is spent; every logical thread adds its token to a checksum, so lost or duplicated
 * work is detected; RSS must stay bounded. Finishes in seconds on 2 CPUs.
 * usage: stress [total_cycles] [max_creators] */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "semantics.h"

static _Atomic uint64_t sum_done;
static _Atomic uint64_t count_done;
static _Atomic long cycles_left;

static void *work(void *arg) {
  atomic_fetch_add(&sum_done, (uint64_t)(uintptr_t)arg);
  atomic_fetch_add(&count_done, 1);
  return arg;
}

struct creator {
  unsigned seed;
  uint64_t sum_started;
  uint64_t started;
  int errors;
};

static void *creator_loop(void *p) {
  struct creator *c = p;
  while (atomic_fetch_sub(&cycles_left, 1) > 0) {
    unsigned r = rand_r(&c->seed);
    uintptr_t token = (r % 1000) + 1;
    pthread_attr_t attr, *ap = NULL;
    if (r & 1) {
      pthread_attr_init(&attr);
      static const size_t sizes[] = {64 << 10, 256 << 10, 1 << 20, 3 << 20, 8 << 20};
      pthread_attr_setstacksize(&attr, sizes[(r >> 1) % 5]);
      if ((r >> 4) % 4 == 0) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      ap = &attr;
    }
    int detached = 0;
    if (ap) pthread_attr_getdetachstate(ap, &detached);
    pthread_t t;
    int e = pthread_create(&t, ap, work, (void *)token);
    if (ap) pthread_attr_destroy(ap);
    if (e != 0) {
      c->errors++;
      continue;
    }
    c->started++;
    c->sum_started += token;
    if (detached == PTHREAD_CREATE_DETACHED) continue;
    if ((r >> 8) % 8 == 0) {
      pthread_detach(t);
      continue;
    }
    void *ret;
    if (pthread_join(t, &ret) != 0 || ret != (void *)token) c->errors++;
  }
  return NULL;
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv) {
  long total = argc > 1 ? atol(argv[1]) : 100000;
  int max_creators = argc > 2 ? atoi(argv[2]) : 64;
  uint64_t expect_sum = 0, expect_count = 0;
  int errors = 0;
  long peak_rss = 0;
  int phases[] = {2, 8, max_creators};
  for (size_t ph = 0; ph < sizeof phases / sizeof phases[0]; ++ph) {
    int n = phases[ph];
    atomic_store(&cycles_left, total / 3);
    struct creator cs[256];
    pthread_t ts[256];
    if (n > 256) n = 256;
    for (int i = 0; i < n; ++i) {
      cs[i] = (struct creator){.seed = (unsigned)(i * 7919 + (int)ph)};
      pthread_create(&ts[i], NULL, creator_loop, &cs[i]);
    }
    for (int i = 0; i < n; ++i) {
      pthread_join(ts[i], NULL);
      expect_sum += cs[i].sum_started;
      expect_count += cs[i].started;
      errors += cs[i].errors;
    }
    long rss = rss_kib();
    if (rss > peak_rss) peak_rss = rss;
  }
  /* detached threads may still be finishing */
  for (int i = 0; i < 500 && atomic_load(&count_done) != expect_count; ++i) settle();
  EXPECT(errors == 0, "every create and join succeeded with the right value");
  EXPECT(atomic_load(&count_done) == expect_count, "every started thread ran exactly once");
  EXPECT(atomic_load(&sum_done) == expect_sum, "checksum of the work matches");
  EXPECT(peak_rss < 512 * 1024, "RSS stays under 512 MiB");
  return semantics_failures;
}
