// The cache's one-pass lookup of next definitions (src/preload/cache/next_symbols.c) must give
// dlsym(RTLD_NEXT)'s answer for every function the cache wraps or forwards to: the test binary
// links the lookup itself, so "the objects after this one" are the same for both (libstdc++,
// libgcc_s, libc, the loader, ...). Names from the wrappers' X-macro lists and base.c's table,
// plus a versioned symbol (pthread_kill: the default GLIBC_2.34), glibc's private data the main
// key uses, an IFUNC (handed to dlsym) and a name defined nowhere.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "next_symbols.h"
}

namespace {

const std::vector<std::string> kNames = {
    // base.c's real functions
    "pthread_create", "pthread_join", "pthread_tryjoin_np", "pthread_timedjoin_np",
    "pthread_clockjoin_np", "pthread_detach", "pthread_exit", "pthread_cancel", "pthread_kill",
    "pthread_key_create", "pthread_key_delete", "pthread_getattr_np", "__pthread_register_cancel",
    "__pthread_unregister_cancel", "__pthread_register_cancel_defer",
    "__pthread_unregister_cancel_restore", "__pthread_unwind_next", "unshare", "setns",
    "pthread_setattr_default_np", "tss_create", "tss_delete", "__call_tls_dtors",
    "pthread_attr_getstackaddr", "pthread_once",
    // the wrappers' lists
    "_Exit", "_Fork", "__longjmp_chk", "__open64_2", "__open_2", "__openat64_2", "__openat_2",
    "_exit", "_longjmp", "capset", "clone", "creat", "creat64", "fopen", "fopen64", "fork",
    "freopen", "freopen64", "longjmp", "nice", "open", "open64", "openat", "openat64", "opendir",
    "pclose", "personality", "popen", "posix_spawn", "posix_spawnp", "prctl",
    "pthread_setaffinity_np", "pthread_setname_np", "pthread_setschedparam", "pthread_setschedprio",
    "pthread_sigqueue", "pthread_sigmask", "raise", "sched_setaffinity", "sched_setparam",
    "sched_setscheduler", "setcontext", "setfsgid", "setfsuid", "setpriority", "sigaction",
    "sigaltstack", "sigblock", "sighold", "siginterrupt", "siglongjmp", "sigprocmask", "sigrelse",
    "sigset", "sigsetmask", "sigstack", "swapcontext", "syscall", "system", "tgkill",
    "timer_create",
    // glibc's key table and its description (main_key.c), an IFUNC, a name defined nowhere
    "__pthread_keys", "_thread_db___pthread_keys", "memcpy", "tm_no_such_symbol_anywhere"};

TEST(CacheNextSymbols, SameAnswerAsDlsymNext) {
  for (const std::string& name : kNames) {
    void* slot = nullptr;
    void* ours = tm__next_symbol(&slot, name.c_str());
    void* theirs = dlsym(RTLD_NEXT, name.c_str());
    EXPECT_EQ(ours, theirs) << name;
    EXPECT_EQ(slot, ours) << name << ": the slot keeps the answer";
  }
}

TEST(CacheNextSymbols, TheTablesAnswerAlmostEverything) {
  ASSERT_EQ(tm__next_symbols_exact(), 1) << "every object after the test binary has a GNU hash";
  unsigned tables_before = 0, dlsym_before = 0;
  tm__next_symbol_counts(&tables_before, &dlsym_before);
  for (const std::string& name : kNames) {
    void* slot = nullptr;
    tm__next_symbol(&slot, name.c_str());
  }
  unsigned tables = 0, by_dlsym = 0;
  tm__next_symbol_counts(&tables, &by_dlsym);
  // glibc's memcpy is an IFUNC (its resolver must run: dlsym's; under ASan the runtime's
  // interceptor, a plain function, comes first); everything else, the absent name too, comes
  // from the tables.
  EXPECT_LE(by_dlsym - dlsym_before, 1u);
  EXPECT_EQ(tables - tables_before + by_dlsym - dlsym_before, kNames.size());
}

TEST(CacheNextSymbols, LoadAddressOfAnObject) {
  Dl_info info;
  void* fn = dlsym(RTLD_DEFAULT, "pthread_create");
  ASSERT_NE(fn, nullptr);
  ASSERT_NE(dladdr(fn, &info), 0);
  EXPECT_EQ(tm__object_load_address(fn), reinterpret_cast<unsigned long>(info.dli_fbase));
  int on_stack = 0;
  EXPECT_EQ(tm__object_load_address(&on_stack), 0ul);
}

}  // namespace
