// Test program for `threadmap watch --follow`: starts two threads named NAME-0 and NAME-1 that
// sleep, and when a command follows, forks and execs it (a child that is a different program
// from the fork), waits for it, then lives argv[2] ms in all before it exits 0.
//   tm_family_probe NAME MS [CMD ARGS...]
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

int g_ms = 0;

void* named_sleeper(void* arg) {
  pthread_setname_np(pthread_self(), static_cast<const char*>(arg));
  std::this_thread::sleep_for(std::chrono::milliseconds(g_ms));
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tm_family_probe NAME MS [CMD ARGS...]\n");
    return 2;
  }
  g_ms = std::atoi(argv[2]);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(g_ms);
  // Thread names are at most 15 characters: NAME is kept short by the tests.
  std::string names[2] = {std::string(argv[1]) + "-0", std::string(argv[1]) + "-1"};
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], nullptr, named_sleeper, names[i].data());
  if (argc > 3) {
    pid_t child = fork();
    if (child == 0) {
      execvp(argv[3], argv + 3);
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
  }
  std::this_thread::sleep_until(end);
  for (pthread_t t : threads) pthread_join(t, nullptr);
  return 0;
}
