// Placed-CPU-count probe (cpus_case.sh) for Go without cgo: a static program (no PT_INTERP),
// which no preload reaches; `threadmap run` places it as a whole process. The Go runtime reads
// the affinity mask once, with a raw system call in osinit, before it makes a thread: NumCPU and
// GOMAXPROCS come from it. Prints them and every thread's CPUs, from the kernel.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

func main() {
	fmt.Printf("size NumCPU %d\n", runtime.NumCPU())
	fmt.Printf("size GOMAXPROCS %d\n", runtime.GOMAXPROCS(0))
	// Three goroutines on threads of their own, alive while the threads are listed.
	var started, done sync.WaitGroup
	release := make(chan struct{})
	for i := 0; i < 3; i++ {
		started.Add(1)
		done.Add(1)
		go func() {
			runtime.LockOSThread()
			started.Done()
			<-release
			done.Done()
		}()
	}
	started.Wait()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, task := range tasks {
		status, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "Cpus_allowed_list:") {
				fmt.Printf("thread-cpus %s\n", strings.TrimSpace(line[18:]))
			}
		}
	}
	close(release)
	done.Wait()
	// Go 1.25 and later read the mask again about once a second (sysmon, a raw system call on
	// its own thread) and follow it: what the program runs with a while after its start.
	time.Sleep(1500 * time.Millisecond)
	fmt.Printf("size GOMAXPROCS_after_1.5s %d\n", runtime.GOMAXPROCS(0))
}
