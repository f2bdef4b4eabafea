// Placed-CPU-count probe (cpus_case.sh) for Rust: std::thread::available_parallelism (glibc's
// sched_getaffinity, and the cgroup quota) on the main thread and on a spawned one, and every
// thread's CPUs from the kernel (/proc/self/task/TID/status).
use std::sync::{Arc, Barrier};
use std::thread;

fn parallelism() -> usize {
    thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
}

fn main() {
    println!("size available_parallelism {}", parallelism());
    let started = Arc::new(Barrier::new(4));
    let release = Arc::new(Barrier::new(4));
    let mut handles = Vec::new();
    for _ in 0..3 {
        let (s, r) = (started.clone(), release.clone());
        handles.push(thread::spawn(move || {
            let n = parallelism();
            s.wait();
            r.wait();
            n
        }));
    }
    started.wait();
    for entry in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let path = entry.expect("task").path().join("status");
        if let Ok(status) = std::fs::read_to_string(path) {
            for line in status.lines() {
                if let Some(list) = line.strip_prefix("Cpus_allowed_list:") {
                    println!("thread-cpus {}", list.trim());
                }
            }
        }
    }
    release.wait();
    let in_thread: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    println!("size thread_available_parallelism {}", in_thread[0]);
}
