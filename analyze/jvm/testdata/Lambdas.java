import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Lambdas holds a few lambdas and N small Entry objects in static fields, then
 * waits, so that jcmd can take a class histogram of its quiet heap on two JDKs.
 * A lambda's class is a hidden class the JDK names itself, differently from one
 * JDK to the next ("Lambdas$$Lambda$14/0x…" on JDK 17, "Lambdas$$Lambda/0x…" on
 * JDK 21 and later): the same program compared across JDKs shows one lambda class
 * gone and one new with a single instance, which is no leak.
 *
 * Usage: java Lambdas N  (prints "ready" when the heap is built)
 */
public class Lambdas {
    static final List<Entry> ENTRIES = new ArrayList<>();
    static final Runnable TICK = () -> ENTRIES.size();
    static final Supplier<Entry> MAKE = () -> new Entry(ENTRIES.size());

    /** Entry is an application object the program keeps N of. */
    static final class Entry {
        final int id;

        Entry(int id) {
            this.id = id;
        }
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            ENTRIES.add(MAKE.get());
        }
        TICK.run();
        System.out.println("ready");
        System.out.flush();
        for (;;) {
            LockSupport.park();
        }
    }
}
