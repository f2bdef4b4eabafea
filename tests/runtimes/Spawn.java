// Java runtime case of the thread-cache matrix: creates threads again and again and prints a
// result that depends only on the work, never on timing.
//   java Spawn platform N   N platform threads, each started and joined in turn
//   java Spawn pool N       N/8 fixed pools of 2 threads made, given 8 tasks and shut down
//   java Spawn process N    N rounds of one thread that starts `true` through ProcessBuilder and
//                           waits for it, then 4 threads that only compute (the thread that
//                           started a process is 1 create in 5: if it is never reused, reuse
//                           stays under 80%)
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public final class Spawn {
  // Work whose result is fixed: a sum over a range, different per task index.
  static long work(int index) {
    long sum = 0;
    for (int i = 0; i < 1000; ++i) sum += (long) (i ^ index) % 7;
    return sum;
  }

  static long platform(int n) throws InterruptedException {
    long[] results = new long[n];
    for (int i = 0; i < n; ++i) {
      final int index = i;
      Thread t = new Thread(() -> results[index] = work(index));
      t.start();
      t.join();
    }
    long total = 0;
    for (long r : results) total += r;
    return total;
  }

  static long pool(int n) throws Exception {
    long total = 0;
    for (int batch = 0; batch < n / 8; ++batch) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Future<Long>> futures = new ArrayList<>();
      for (int k = 0; k < 8; ++k) {
        final int index = batch * 8 + k;
        futures.add(pool.submit(() -> work(index)));
      }
      for (Future<Long> f : futures) total += f.get();
      pool.shutdown();
    }
    return total;
  }

  static long process(int n) throws Exception {
    long[] codes = new long[n];
    long total = 0;
    for (int i = 0; i < n; ++i) {
      final int index = i;
      Thread t = new Thread(() -> {
        try {
          Process p = new ProcessBuilder("true").start();
          codes[index] = p.waitFor() + 1;
        } catch (Exception e) {
          codes[index] = -1;
        }
      });
      t.start();
      t.join();
      total += platform(4);
    }
    for (long c : codes) total += c;
    return total;
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "platform";
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    long result;
    switch (mode) {
      case "platform": result = platform(n); break;
      case "pool": result = pool(n); break;
      case "process": result = process(n); break;
      default:
        System.err.println("Spawn: unknown mode " + mode);
        System.exit(2);
        return;
    }
    System.out.println(mode + " " + n + " " + result);
  }
}
