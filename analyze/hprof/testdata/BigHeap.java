import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * BigHeap builds a large heap for leakui's HPROF benchmark, then waits so that jcmd
 * can dump it: chains of entries (each with a key String, a payload byte array and a
 * reference to a random other entry, so the dominator tree is not just the chains),
 * four objects per entry.
 *
 * Usage: java -Xmx2g BigHeap ENTRIES PAYLOAD  (prints "ready" when the heap is built)
 * With 3,750,000 entries of 150 bytes the dump is about 1 GiB with 15 million objects.
 */
public class BigHeap {
    static Entry[] chains;

    static final class Entry {
        Entry next;
        Entry other;
        final String key;
        final byte[] payload;
        long value;

        Entry(String key, byte[] payload) {
            this.key = key;
            this.payload = payload;
        }
    }

    public static void main(String[] args) {
        int entries = Integer.parseInt(args[0]);
        int payload = Integer.parseInt(args[1]);
        int chainLength = 1000;
        chains = new Entry[(entries + chainLength - 1) / chainLength];
        Entry[] all = new Entry[entries];
        Random rng = new Random(20);
        for (int i = 0; i < entries; i++) {
            Entry e = new Entry("key-" + i, new byte[payload]);
            e.value = i;
            int c = i / chainLength;
            e.next = chains[c];
            chains[c] = e;
            all[i] = e;
        }
        for (int i = 0; i < entries; i += 3) {
            all[i].other = all[rng.nextInt(entries)];
        }
        all = null;
        System.out.println("ready");
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
