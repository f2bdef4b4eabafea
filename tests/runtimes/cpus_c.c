/* Placed-CPU-count probe (cpus_case.sh) for C through every door glibc has: sched_getaffinity,
 * pthread_getaffinity_np, syscall(SYS_sched_getaffinity) on the main thread before and after it
 * made a thread, in a thread, about the main thread by pid and pthread_t from a thread, and a
 * mask the program sets itself (the first CPU it sees), which must read back as set. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_t main_thread;
static pid_t process;

static int by_glibc(pid_t pid) {
  cpu_set_t set;
  return sched_getaffinity(pid, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

static int by_pthread(pthread_t thread) {
  cpu_set_t set;
  return pthread_getaffinity_np(thread, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

static int by_syscall(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  return syscall(SYS_sched_getaffinity, pid, sizeof set, &set) > 0 ? CPU_COUNT(&set) : -1;
}

static void print_sizes(const char* where) {
  printf("size %s_sched_getaffinity %d\n", where, by_glibc(0));
  printf("size %s_pthread_getaffinity_np %d\n", where, by_pthread(pthread_self()));
  printf("size %s_syscall %d\n", where, by_syscall(0));
}

static pthread_barrier_t started, release;

static void* worker(void* arg) {
  if (arg) {
    print_sizes("thread");
    printf("size thread_asks_main_by_pid %d\n", by_glibc(process));
    printf("size thread_asks_main_by_pthread %d\n", by_pthread(main_thread));
  }
  pthread_barrier_wait(&started);
  pthread_barrier_wait(&release);
  return NULL;
}

static void print_thread_cpus(void) {
  DIR* dir = opendir("/proc/self/task");
  struct dirent* entry;
  while (dir && (entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[300], line[4096];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", entry->d_name);
    FILE* status = fopen(path, "r");
    while (status && fgets(line, sizeof line, status))
      if (strncmp(line, "Cpus_allowed_list:", 18) == 0) printf("thread-cpus %s", line + 19);
    if (status) fclose(status);
  }
  if (dir) closedir(dir);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  main_thread = pthread_self();
  process = getpid();
  print_sizes("main_first");
  pthread_barrier_init(&started, NULL, 4);
  pthread_barrier_init(&release, NULL, 4);
  pthread_t threads[3];
  for (long i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, worker, i == 0 ? (void*)1 : NULL);
  pthread_barrier_wait(&started);
  print_sizes("main_after_threads");
  print_thread_cpus();
  pthread_barrier_wait(&release);
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  /* The program places itself: what it set is what it reads back. */
  cpu_set_t seen, own;
  sched_getaffinity(0, sizeof seen, &seen);
  CPU_ZERO(&own);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &seen)) {
      CPU_SET(cpu, &own);
      break;
    }
  sched_setaffinity(0, sizeof own, &own);
  print_sizes("main_own_mask");
  return 0;
}
