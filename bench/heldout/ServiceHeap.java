import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * ServiceHeap builds the heap of a long-running service for leakui's large heap dump
 * benchmark, then waits so that jcmd can dump it. It is held out: no test of leakui reads
 * its dumps, and its shape is unlike the test programs' (and unlike BigHeap's chains). Its
 * objects are the JDK's collections as a service holds them:
 *
 * <ul>
 *   <li>a registry (ConcurrentHashMap) of sessions, each with an id String, a HashMap of
 *       attributes, an ArrayList of events, a long[] of counters, a shared tenant and a
 *       reference to a random other session (so sessions are shared and the dominator tree
 *       is not a forest of trees);
 *   <li>events holding a timestamp, a message shared from a pool of 1,000 Strings, and a
 *       byte[] payload of 16 to 112 bytes;
 *   <li>a leak: a static list of "consumers" that were never closed, each holding a heap
 *       ByteBuffer of 16 KiB and a LinkedList of records, one consumer every 32 sessions.
 * </ul>
 *
 * Usage: java -Xmx12g ServiceHeap SESSIONS (prints "ready" when the heap is built). About 61
 * objects and 3.9 KiB of dump a session: 2,500,000 sessions make a dump of about 10 GB with
 * 150 million objects.
 */
public class ServiceHeap {
    static final Map<String, Session> registry = new ConcurrentHashMap<>();
    static final List<Consumer> unclosed = new ArrayList<>();

    static final class Tenant {
        final String name;
        final long[] quota = new long[8];

        Tenant(String name) {
            this.name = name;
        }
    }

    static final class Event {
        final long at;
        final String message;
        final byte[] payload;

        Event(long at, String message, byte[] payload) {
            this.at = at;
            this.message = message;
            this.payload = payload;
        }
    }

    static final class Session {
        final String id;
        final Tenant tenant;
        final Map<String, String> attributes = new HashMap<>();
        final List<Event> events = new ArrayList<>();
        final long[] counters = new long[16];
        Session peer;

        Session(String id, Tenant tenant) {
            this.id = id;
            this.tenant = tenant;
        }
    }

    static final class Record {
        final long offset;
        final byte[] value;

        Record(long offset, byte[] value) {
            this.offset = offset;
            this.value = value;
        }
    }

    static final class Consumer {
        final String clientId;
        final ByteBuffer fetchBuffer = ByteBuffer.allocate(16 << 10);
        final LinkedList<Record> pending = new LinkedList<>();

        Consumer(String clientId) {
            this.clientId = clientId;
        }
    }

    public static void main(String[] args) {
        int sessions = Integer.parseInt(args[0]);
        Random rng = new Random(29);
        Tenant[] tenants = new Tenant[100];
        for (int i = 0; i < tenants.length; i++) {
            tenants[i] = new Tenant("tenant-" + i);
        }
        String[] messages = new String[1000];
        for (int i = 0; i < messages.length; i++) {
            messages[i] = "event kind " + i + " from the request handler";
        }
        Session[] all = new Session[sessions];
        for (int i = 0; i < sessions; i++) {
            Session s = new Session("session-" + i, tenants[rng.nextInt(tenants.length)]);
            for (int a = 0; a < 4; a++) {
                s.attributes.put("attr-" + a, "value-" + (i % 997) + "-" + a);
            }
            for (int e = 0; e < 16; e++) {
                s.events.add(new Event(i * 16L + e, messages[rng.nextInt(messages.length)],
                        new byte[16 + rng.nextInt(97)]));
            }
            all[i] = s;
            registry.put(s.id, s);
            if (i % 32 == 0) {
                Consumer c = new Consumer("consumer-" + i);
                for (int r = 0; r < 8; r++) {
                    c.pending.add(new Record(r, new byte[32 + rng.nextInt(64)]));
                }
                unclosed.add(c);
            }
        }
        for (int i = 0; i < sessions; i++) {
            all[i].peer = all[rng.nextInt(sessions)];
        }
        all = null;
        System.out.println("ready " + registry.size() + " sessions, " + unclosed.size() + " consumers");
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
