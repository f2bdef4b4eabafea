// Rust runtime case of the thread-cache matrix: std threads created again and again, with a
// result that depends only on the work.
//   spawn spawn N   N threads made by std::thread::spawn, each joined before the next
//   spawn scope N   N/4 scopes (std::thread::scope), each running 4 threads over a shared slice
use std::env;
use std::process;
use std::thread;

fn work(index: u64) -> u64 {
    (0..1000u64).map(|i| (i ^ index) % 7).sum()
}

fn spawn(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        total += thread::spawn(move || work(i)).join().expect("thread panicked");
    }
    total
}

fn scope(n: u64) -> u64 {
    let mut total = 0;
    for batch in 0..n / 4 {
        let inputs: Vec<u64> = (0..4).map(|k| batch * 4 + k).collect();
        let mut outputs = [0u64; 4];
        thread::scope(|s| {
            for (out, &index) in outputs.iter_mut().zip(inputs.iter()) {
                s.spawn(move || *out = work(index));
            }
        });
        total += outputs.iter().sum::<u64>();
    }
    total
}

fn main() {
    let args: Vec<String> = env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("spawn");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let result = match mode {
        "spawn" => spawn(n),
        "scope" => scope(n),
        _ => {
            eprintln!("spawn: unknown mode {}", mode);
            process::exit(2);
        }
    };
    println!("{} {} {}", mode, n, result);
}
