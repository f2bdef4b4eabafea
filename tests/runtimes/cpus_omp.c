/* Placed-CPU-count probe (cpus_case.sh) for OpenMP (libgomp): the team size it picks by itself
 * (omp_get_max_threads: the CPUs of the initial thread's affinity, read in libgomp's constructor
 * with pthread_getaffinity_np), omp_get_num_procs (read again at the call), the size of a team it
 * really starts, and every thread's CPUs from the kernel while the team is alive. */
#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

static void print_thread_cpus(void) {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return;
  struct dirent* entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", entry->d_name);
    FILE* status = fopen(path, "r");
    if (!status) continue;
    char line[4096];
    while (fgets(line, sizeof line, status))
      if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
        char* list = line + 18;
        while (*list == ' ' || *list == '\t') ++list;
        printf("thread-cpus %s", list);
      }
    fclose(status);
  }
  closedir(dir);
}

int main(void) {
  printf("size omp_get_max_threads %d\n", omp_get_max_threads());
  printf("size omp_get_num_procs %d\n", omp_get_num_procs());
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
#pragma omp barrier
#pragma omp master
    print_thread_cpus();
#pragma omp barrier
  }
  printf("size team %d\n", team);
  printf("size after_omp_get_num_procs %d\n", omp_get_num_procs());
  return 0;
}
