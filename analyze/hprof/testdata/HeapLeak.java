import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * HeapLeak builds the two leak shapes whose sentences name the wrong object when
 * a suspect is told by its top-level object rather than by where the memory
 * accumulates, then waits so that jcmd can dump its quiet heap:
 *
 * - a static cache: HeapLeak.CACHE, a HashMap of M byte arrays of B bytes each,
 *   whose memory accumulates in the map's table (a HashMap$Node[]), not in the
 *   class that holds the field;
 * - N parked threads (Samza's KafkaConsumerProxy threads) that each keep a
 *   consumer of C bytes alive through a local variable of their run method only:
 *   no field of the thread refers to it, so the thread object itself retains a
 *   few hundred bytes while the thread alone keeps the consumer alive.
 *
 * Usage: java HeapLeak M B N C  (prints "ready" when the heap is built)
 */
public class HeapLeak {
    static final Map<Integer, byte[]> CACHE = new HashMap<>();

    /** Consumer stands for Samza's KafkaSystemConsumer: one buffer it fills. */
    static final class Consumer {
        final byte[] buffer;
        long polled;

        Consumer(int bytes) {
            buffer = new byte[bytes];
        }
    }

    public static void main(String[] args) throws Exception {
        int m = Integer.parseInt(args[0]);
        int b = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        int c = Integer.parseInt(args[3]);
        for (int i = 0; i < m; i++) {
            CACHE.put(i, new byte[b]);
        }
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            threads[i] = new Thread(() -> {
                Consumer consumer = new Consumer(c);
                while (true) {
                    LockSupport.park();
                    consumer.polled++;
                }
            }, "KafkaConsumerProxy-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        Thread.sleep(500);
        System.out.println("ready");
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
