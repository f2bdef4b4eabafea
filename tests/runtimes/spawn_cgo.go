// Go (with cgo) case of the thread-cache matrix. With cgo, the Go runtime makes its threads
// (Ms) with pthread_create; a goroutine that locks its OS thread and returns without unlocking
// ends that thread, so every round below makes one new thread and ends one. The result depends
// only on the work.
//   spawn_cgo N   N goroutines, each locked to its thread, calling into C once
package main

/*
static long work(long index) {
	long sum = 0;
	for (long i = 0; i < 1000; ++i) sum += (i ^ index) % 7;
	return sum;
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
)

func main() {
	n := 1000
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v <= 0 {
			fmt.Fprintln(os.Stderr, "spawn_cgo: N must be a positive integer")
			os.Exit(2)
		}
		n = v
	}
	var total int64
	done := make(chan int64)
	for i := 0; i < n; i++ {
		go func(index int) {
			// Never unlocked: the runtime ends this thread when the goroutine returns.
			runtime.LockOSThread()
			done <- int64(C.work(C.long(index)))
		}(i)
		total += <-done
	}
	fmt.Printf("cgo %d %d\n", n, total)
}
