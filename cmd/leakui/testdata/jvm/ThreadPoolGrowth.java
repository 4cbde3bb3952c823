// ThreadPoolGrowth is the test program of leakui's verdict on native memory that
// Native Memory Tracking does track: it grows a thread pool by COUNT threads
// that each touch a few hundred KiB of their stack and then wait, as a pool that
// is never shut down does. Their stacks are NMT's Thread category.
//
// Usage: java -XX:NativeMemoryTracking=summary ThreadPoolGrowth COUNT
//
// It prints "ready" and waits for a line on standard input at the end of each
// phase: before the threads, after them, and once more to hold until the test
// ends (or standard input closes).
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class ThreadPoolGrowth {
    private static final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
    private static final CountDownLatch stop = new CountDownLatch(1);

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[0]);
        ready();
        ExecutorService pool = Executors.newFixedThreadPool(count);
        CountDownLatch started = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            pool.execute(() -> {
                deep(2000);
                started.countDown();
                try {
                    stop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        started.await();
        ready();
        ready();
        stop.countDown();
        pool.shutdown();
    }

    // deep recurses depth frames with live locals, touching the stack's pages
    // as a thread that does real work does.
    private static long deep(int depth) {
        long a = depth, b = a * 3, c = b ^ a, d = c + 7, e = d * a, f = e - b, g = f | c, h = g + d;
        if (depth == 0) {
            return h;
        }
        return deep(depth - 1) + a + b + c + d + e + f + g + h;
    }

    private static void ready() throws IOException {
        System.out.println("ready");
        System.out.flush();
        if (stdin.readLine() == null) {
            System.exit(0);
        }
    }
}
