/* Prints the memory policy the main thread and N new threads find at their first instruction:
 * "<label> mode=MPOL_BIND nodes=0". Threads are created one after another (creation order =
 * the pin preload's slot order) and their lines printed in that order.
 * With "named", each thread first names itself worker-I (pthread_setname_np), then reads.
 * Usage: tm_mem_probe [THREADS [named]] */
#define _GNU_SOURCE
#include <linux/mempolicy.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WORDS 16 /* 1024 nodes: get_mempolicy needs maxnode >= the kernel's node count */

typedef struct policy {
  int mode;
  char nodes[256];
  int index; /* >= 0: name the thread worker-INDEX first */
} policy;

static const char* mode_name(int mode) {
  switch (mode & ~(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) {
    case MPOL_DEFAULT:
      return "MPOL_DEFAULT";
    case MPOL_PREFERRED:
      return "MPOL_PREFERRED";
    case MPOL_BIND:
      return "MPOL_BIND";
    case MPOL_INTERLEAVE:
      return "MPOL_INTERLEAVE";
    case MPOL_LOCAL:
      return "MPOL_LOCAL";
  }
  return "MPOL_OTHER";
}

static void read_policy(policy* p) {
  unsigned long mask[WORDS];
  memset(mask, 0, sizeof mask);
  p->mode = -1;
  p->nodes[0] = '\0';
  if (syscall(SYS_get_mempolicy, &p->mode, mask, (unsigned long)(WORDS * 8 * sizeof(long)), NULL,
              0UL) != 0) {
    snprintf(p->nodes, sizeof p->nodes, "error");
    return;
  }
  size_t used = 0;
  for (int n = 0; n < WORDS * 64; ++n) {
    if (!((mask[n / 64] >> (n % 64)) & 1UL)) continue;
    used += (size_t)snprintf(p->nodes + used, sizeof p->nodes - used, "%s%d", used ? "," : "", n);
    if (used >= sizeof p->nodes) break;
  }
}

static void* thread_main(void* arg) {
  policy* p = arg;
  if (p->index >= 0) {
    char name[16];
    snprintf(name, sizeof name, "worker-%d", p->index % 1000);
    pthread_setname_np(pthread_self(), name);
  }
  read_policy(p); /* first thing the start routine does (after naming itself) */
  return NULL;
}

int main(int argc, char** argv) {
  policy main_policy;
  read_policy(&main_policy);
  printf("main mode=%s nodes=%s\n", mode_name(main_policy.mode), main_policy.nodes);
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  int named = argc > 2 && strcmp(argv[2], "named") == 0;
  for (int i = 0; i < threads; ++i) {
    policy p;
    p.index = named ? i : -1;
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, &p) != 0) return 1;
    pthread_join(t, NULL);
    printf("thread-%d mode=%s nodes=%s\n", i, mode_name(p.mode), p.nodes);
  }
  return 0;
}
