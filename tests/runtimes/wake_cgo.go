// Go (with cgo) whose C code makes threads and wakes them with pthread_kill: the Go runtime sets
// each of its threads' signal masks with its own system calls (no libc wrapper sees them), so a
// thread cache that trusted a user-space record of the mask handed the C threads a mask with
// every signal blocked (the one the runtime's pthread_create wrapper blocks around each new M)
// where glibc gives them their creator's, and the wake-ups were lost until a timeout.
//
//   wake_cgo N   N rounds; in each, goroutines call C, which creates a thread, wakes it with
//                pthread_kill(SIGUSR1) and joins it. The thread compares, at its first
//                instruction, its kernel signal mask with its creator's (both read with a raw
//                rt_sigprocmask, not through libc) and then waits up to 2 s for the signal.
//
// Prints "wake_cgo N: woken W of N, mask as the creator's M of N": a lost wake-up or a mask
// that is not the creator's changes the line (run_case.sh compares it with glibc's).
package main

/*
#cgo CFLAGS: -D_GNU_SOURCE
#cgo LDFLAGS: -pthread
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t woken_flag;
static void on_usr1(int sig) { (void)sig; woken_flag = 1; }

// The kernel's mask of the calling thread (8 bytes: the kernel's sigset), past any wrapper.
static unsigned long long kernel_mask(void) {
	unsigned long long m = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, sizeof m);
	return m;
}

struct job {
	unsigned long long creator_mask;
	int same_mask;
	int woken;
	atomic_int ready;
};

static void *waiter(void *arg) {
	struct job *j = arg;
	j->same_mask = kernel_mask() == j->creator_mask;
	atomic_store(&j->ready, 1);
	// Wait for the wake-up: 2 s at most (a blocked SIGUSR1 stays pending until then).
	for (int i = 0; i < 200 && !woken_flag; ++i) poll(NULL, 0, 10);
	j->woken = woken_flag;
	return NULL;
}

static int installed;

// One round on the calling (Go) thread: 1 when the wake-up arrived, plus 2 when the new thread
// started with its creator's mask.
static int round_trip(void) {
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_ONSTACK; // Go requires SA_ONSTACK for handlers on its threads
		sigaction(SIGUSR1, &sa, NULL);
		installed = 1;
	}
	woken_flag = 0;
	struct job j;
	memset(&j, 0, sizeof j);
	j.creator_mask = kernel_mask();
	pthread_t t;
	if (pthread_create(&t, NULL, waiter, &j) != 0) return -1;
	while (!atomic_load(&j.ready)) usleep(100);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	return j.woken + 2 * j.same_mask;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

func main() {
	n := 200
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v <= 0 {
			fmt.Fprintln(os.Stderr, "wake_cgo: N must be a positive integer")
			os.Exit(2)
		}
		n = v
	}
	// Rounds one at a time (one handler flag), each from a goroutine: the runtime runs them on
	// whichever of its threads is free, so several Ms make C threads.
	var mu sync.Mutex
	woken, same := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			r := int(C.round_trip())
			if r < 0 {
				fmt.Fprintln(os.Stderr, "wake_cgo: pthread_create failed")
				os.Exit(1)
			}
			woken += r & 1
			same += r >> 1
		}()
	}
	wg.Wait()
	fmt.Printf("wake_cgo %d: woken %d of %d, mask as the creator's %d of %d\n", n, woken, n, same, n)
}
