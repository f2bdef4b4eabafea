// Placed-CPU-count probe (cpus_case.sh): what the JVM sizes itself by, and where its threads
// run. Prints `size KEY VALUE` lines (compared between `taskset -c X` and `threadmap run --cpus
// X`) and one `thread-cpus LIST` line per thread of the process, from the kernel
// (/proc/self/task/TID/status Cpus_allowed_list), while three threads of ours are alive.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

public class CpusProbe {
  public static void main(String[] args) throws Exception {
    // availableProcessors sizes the GC, the JIT and the common pool; the collector itself is
    // chosen by it (G1 on a "server class machine": 2 processors or more, else Serial).
    System.out.println("size availableProcessors " + Runtime.getRuntime().availableProcessors());
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
      System.out.println("size gc " + gc.getName().replace(' ', '_'));
    System.out.println("size commonPool " + java.util.concurrent.ForkJoinPool.getCommonPoolParallelism());
    CountDownLatch started = new CountDownLatch(3);
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger inThread = new AtomicInteger();
    for (int i = 0; i < 3; ++i) {
      Thread t = new Thread(() -> {
        inThread.set(Runtime.getRuntime().availableProcessors());
        started.countDown();
        try {
          done.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      t.start();
    }
    started.await();
    System.out.println("size thread_availableProcessors " + inThread.get());
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
      for (Path task : tasks) {
        List<String> lines;
        try {
          lines = Files.readAllLines(task.resolve("status"));
        } catch (NoSuchFileException ended) {
          continue; // a thread that ended since the listing is no thread any more
        }
        for (String line : lines) {
          if (line.startsWith("Cpus_allowed_list:"))
            System.out.println("thread-cpus " + line.substring(18).trim());
        }
      }
    }
    done.countDown();
  }
}
