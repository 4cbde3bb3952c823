import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * LeakShape builds a heap of known shape for leakui's HPROF tests, then waits so
 * that jcmd can take a class histogram and a heap dump of the same quiet heap.
 *
 * The leak is SAMZA-2785's: N consumers (KafkaSystemConsumer in Samza), each
 * holding a buffer of B bytes, kept alive by N parked threads (Samza's
 * KafkaConsumerProxy threads, which nobody stops). Beside it: a HashMap that
 * accumulates M small arrays under a static field, a registry of weak references
 * to the consumers (which must not count as holding them), and one object that only
 * a soft reference reaches (which must retain nothing).
 *
 * Usage: java LeakShape N B M MB  (prints "ready" when the heap is built)
 */
public class LeakShape {
    static final List<WeakReference<Consumer>> REGISTRY = new ArrayList<>();
    static final Map<Integer, byte[]> CACHE = new HashMap<>();
    static SoftReference<SoftOnly> soft;

    /** Consumer stands for Samza's KafkaSystemConsumer: one buffer it fills. */
    static final class Consumer {
        final byte[] buffer;
        long polled;

        Consumer(int bytes) {
            buffer = new byte[bytes];
        }
    }

    /** ConsumerThread stands for KafkaConsumerProxy's thread: parked forever. */
    static final class ConsumerThread extends Thread {
        final Consumer consumer;

        ConsumerThread(String name, Consumer consumer) {
            super(name);
            this.consumer = consumer;
            setDaemon(true);
        }

        @Override
        public void run() {
            while (true) {
                LockSupport.park();
            }
        }
    }

    /** SoftOnly is reachable only through a SoftReference. */
    static final class SoftOnly {
        final byte[] payload = new byte[64 * 1024];
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        int b = Integer.parseInt(args[1]);
        int m = Integer.parseInt(args[2]);
        int mb = Integer.parseInt(args[3]);
        for (int i = 0; i < n; i++) {
            Consumer c = new Consumer(b);
            REGISTRY.add(new WeakReference<>(c));
            new ConsumerThread("KafkaConsumerProxy-" + i, c).start();
        }
        for (int i = 0; i < m; i++) {
            CACHE.put(i, new byte[mb]);
        }
        soft = new SoftReference<>(new SoftOnly());
        System.out.println("ready");
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
