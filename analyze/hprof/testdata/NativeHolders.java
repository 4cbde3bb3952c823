// NativeHolders holds memory outside the Java heap in each of the ways the
// native memory section of a heap dump's report reads, and measures what its
// zlib streams cost, for a test that takes `jcmd GC.heap_dump -all` of it.
//
// Usage: java -Xms512m -Xmx512m -Xmn400m -XX:+AlwaysPreTouch -XX:+UseSerialGC \
//            NativeHolders STREAMS BUFFERS BUFFER_MIB MAPPED_FILE
//
//   - STREAMS GZIPInputStreams, each over its own gzip payload of 64 KiB of
//     text, with their first 1,024 bytes read (as Kafka's deep iterator read a
//     wrapper message's first inner message); a quarter stay referenced, the
//     others are dropped without close(): their Inflaters wait for the
//     Cleaner, which only a GC sets going. With the Java heap committed and
//     touched up front (-Xms = -Xmx, AlwaysPreTouch), what the resident set
//     gains while they are opened is native memory; and 10 streams closed
//     and kept;
//   - 8 Deflaters that deflated some input and stay open, 4 ended ones;
//   - BUFFERS direct ByteBuffers of BUFFER_MIB MiB each, and a slice and a
//     duplicate of each (views that own no memory);
//   - MAPPED_FILE (1 MiB, created) mapped read-only;
//   - a thread started with a stack size of 8 MiB, waiting.
//
// It writes in MAPPED_FILE.measured what the resident set gained per stream
// ("rss_per_stream BYTES") and what the JVM's buffer pools count ("direct
// COUNT CAPACITY", "mapped COUNT CAPACITY", as BufferPoolMXBean says) and how
// many GCs ran after the streams were dropped ("gcs_after_drop N"). Then it
// prints "ready" and waits, allocating nothing, so that no GC runs
// before the dump.
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

public final class NativeHolders {
    static final List<InputStream> streams = new ArrayList<>();
    static final List<Deflater> deflaters = new ArrayList<>();
    static final List<ByteBuffer> buffers = new ArrayList<>();
    static MappedByteBuffer mapped;
    static Thread bigStack;

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[0]);
        int buffers = Integer.parseInt(args[1]);
        int bufferMiB = Integer.parseInt(args[2]);
        Path mappedFile = Path.of(args[3]);

        byte[][] payloads = new byte[64][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = gzip(text(i, 64 << 10));
        }
        // Warm up: load the classes, so that the measurement sees the streams.
        for (int i = 0; i < 200; i++) {
            try (InputStream in = openFirst(payloads[i % payloads.length])) {
                in.available();
            }
        }
        settle();
        long before = rssBytes();
        List<InputStream> opened = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            opened.add(openFirst(payloads[i % payloads.length]));
        }
        long after = rssBytes();
        long perStream = (after - before) / count;
        streams.addAll(opened.subList(0, count / 4));
        opened = null; // the other three quarters: dropped, not closed
        long gcsAtDrop = collections();
        for (int i = 0; i < 10; i++) {
            InputStream in = openFirst(payloads[i]);
            in.close(); // ended: its Inflater holds no zlib memory
            streams.add(in);
        }

        byte[] input = text(99, 16 << 10);
        byte[] out = new byte[64 << 10];
        for (int i = 0; i < 12; i++) {
            Deflater d = new Deflater();
            d.setInput(input);
            d.deflate(out);
            if (i >= 8) {
                d.end();
            }
            deflaters.add(d);
        }

        List<ByteBuffer> views = new ArrayList<>();
        for (int i = 0; i < buffers; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(bufferMiB << 20);
            NativeHolders.buffers.add(b);
            views.add(b.slice());
            views.add(b.duplicate());
        }
        NativeHolders.buffers.addAll(views);

        try (RandomAccessFile f = new RandomAccessFile(mappedFile.toFile(), "rw")) {
            f.setLength(1 << 20);
            mapped = f.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, 1 << 20);
        }

        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        bigStack = new Thread(null, () -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                // the test ends the process
            }
        }, "big-stack", 8 << 20);
        bigStack.setDaemon(true);
        bigStack.start();
        started.await();

        // What the JVM counts itself: the pools of direct and mapped buffers
        // (java.nio.BufferPoolMXBean), written with RandomAccessFile, which
        // uses no direct buffer.
        StringBuilder measured = new StringBuilder("rss_per_stream " + perStream + "\n");
        // A GC after the drop would have let the Cleaner end the dropped streams.
        measured.append("gcs_after_drop ").append(collections() - gcsAtDrop).append('\n');
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            measured.append(pool.getName()).append(' ').append(pool.getCount()).append(' ')
                    .append(pool.getTotalCapacity()).append('\n');
        }
        try (RandomAccessFile f = new RandomAccessFile(mappedFile + ".measured", "rw")) {
            f.write(measured.toString().getBytes());
        }

        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    // collections counts the GCs so far.
    static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += gc.getCollectionCount();
        }
        return n;
    }

    // openFirst opens a GZIPInputStream over payload and reads its first
    // 1,024 bytes.
    static InputStream openFirst(byte[] payload) throws IOException {
        InputStream in = new GZIPInputStream(new ByteArrayInputStream(payload));
        in.readNBytes(1024);
        return in;
    }

    // text is n bytes of text that compress as log lines do.
    static byte[] text(int seed, int n) {
        StringBuilder sb = new StringBuilder(n);
        long x = seed * 2654435761L + 1;
        while (sb.length() < n) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sb.append("offset=").append((x >>> 33) % 100000).append(" key=k").append((x >>> 20) & 0xfff)
                    .append(" value=").append(Long.toHexString(x)).append('\n');
        }
        return sb.substring(0, n).getBytes();
    }

    static byte[] gzip(byte[] b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(b);
        }
        return out.toByteArray();
    }

    // settle collects twice and gives the cleaner thread time to run.
    static void settle() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(200);
        }
    }

    static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }
}
