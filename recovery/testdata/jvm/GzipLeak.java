// GzipLeak is the JVM reference of leakui's KAFKA-3933 model: it does what Kafka
// 0.10.0.0's LogSegment.recover did to a gzip wrapper message of format v0 through
// ByteBufferMessageSet.deepIterator, over the same payloads the Go model reads,
// and measures the native memory that costs.
//
// Usage: java -Xms64m -Xmx64m -XX:+AlwaysPreTouch -XX:NativeMemoryTracking=summary \
//            GzipLeak PAYLOADS STREAMS OUTDIR [capture]
//
// PAYLOADS holds gzip payloads, each prefixed by its length (int32, big-endian):
// the values of the wrapper messages (their compressed inner message sets). The
// program opens STREAMS GZIPInputStreams over them in turn, reads the first inner
// message of each (offset, size, then the message, as readMessageFromStream does)
// and keeps every stream open and reachable, as the leaked deep iterators were.
// With the Java heap committed and touched up front (-Xms = -Xmx, AlwaysPreTouch),
// what the resident set gains is native memory: zlib's inflate state and window,
// which the JDK allocates with malloc, outside the Java heap.
//
// It prints one JSON object: the resident set (VmRSS of /proc/self/status) and
// NMT's committed total (jcmd VM.native_memory summary) before and after the
// streams, and the resident set after the streams are dropped and collected
// (the Inflater cleaners free zlib's memory; what glibc keeps stays resident).
// OUTDIR receives the jcmd outputs: nmt-before.txt, nmt-after.txt, histo.txt.
// With "capture", it prints "capture before" before the streams and "capture
// after" with them open, and each time waits for a line on standard input, so
// that `leakui capture jvm` can take this JVM's evidence at both points.
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

public final class GzipLeak {
    private static List<DataInputStream> open = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        List<byte[]> payloads = readPayloads(Path.of(args[0]));
        int streams = Integer.parseInt(args[1]);
        Path out = Path.of(args[2]);
        boolean capture = args.length > 3 && args[3].equals("capture");

        // Warm up: load the classes and start the attach listener, so that the
        // measurement sees the streams and nothing else.
        for (int i = 0; i < 200; i++) {
            try (DataInputStream in = openFirst(payloads.get(i % payloads.size()))) {
                in.available();
            }
        }
        jcmd("VM.native_memory", "summary");
        settle();

        long rssBefore = rssBytes();
        String nmtBefore = jcmd("VM.native_memory", "summary");
        if (capture) {
            waitForCapture("before");
        }
        for (int i = 0; i < streams; i++) {
            DataInputStream in = openFirst(payloads.get(i % payloads.size()));
            open.add(in);
        }
        long rssAfter = rssBytes();
        if (capture) {
            waitForCapture("after");
        }
        String nmtAfter = jcmd("VM.native_memory", "summary");
        String histo = jcmd("GC.class_histogram");
        Files.writeString(out.resolve("nmt-before.txt"), nmtBefore);
        Files.writeString(out.resolve("nmt-after.txt"), nmtAfter);
        Files.writeString(out.resolve("histo.txt"), histo);

        open = null;
        settle();
        long rssCollected = rssBytes();

        System.out.printf("{\"streams\":%d,\"payloads\":%d,\"rss_before\":%d,\"rss_after\":%d,\"rss_collected\":%d,"
                + "\"nmt_committed_before\":%d,\"nmt_committed_after\":%d}%n",
                streams, payloads.size(), rssBefore, rssAfter, rssCollected,
                nmtCommitted(nmtBefore), nmtCommitted(nmtAfter));
    }

    // openFirst opens the deep iterator's stream and reads the first inner
    // message: offset (int64), size (int32), then size bytes.
    private static DataInputStream openFirst(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new GZIPInputStream(new ByteArrayInputStream(payload)));
        in.readLong();
        int size = in.readInt();
        in.readFully(new byte[size]);
        return in;
    }

    private static List<byte[]> readPayloads(Path path) throws IOException {
        byte[] all = Files.readAllBytes(path);
        List<byte[]> payloads = new ArrayList<>();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(all));
        while (in.available() > 0) {
            byte[] p = new byte[in.readInt()];
            in.readFully(p);
            payloads.add(p);
        }
        if (payloads.isEmpty()) {
            throw new IOException("no payloads in " + path);
        }
        return payloads;
    }

    private static final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));

    // waitForCapture says that the JVM is at phase and waits until it is captured.
    private static void waitForCapture(String phase) throws IOException {
        System.out.println("capture " + phase);
        System.out.flush();
        if (stdin.readLine() == null) {
            throw new IOException("standard input closed before the " + phase + " capture");
        }
    }

    // settle collects twice and gives the cleaner thread time to run.
    private static void settle() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(200);
        }
    }

    private static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }

    private static final Pattern TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");

    private static long nmtCommitted(String summary) {
        Matcher m = TOTAL.matcher(summary);
        return m.find() ? Long.parseLong(m.group(2)) * 1024 : -1;
    }

    // jcmd runs the JDK's jcmd against this process (the one on PATH beside java).
    private static String jcmd(String... command) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        // jcmd is a JVM too: a small one, so that it starts under the lab's
        // address-space limit (-run-memory), which its default heap reservation
        // (a quarter of the machine's memory) would pass.
        argv.addAll(List.of("-J-Xmx64m", "-J-XX:ReservedCodeCacheSize=32m", "-J-XX:CompressedClassSpaceSize=64m", "-J-XX:+UseSerialGC"));
        argv.add(Long.toString(ProcessHandle.current().pid()));
        argv.addAll(List.of(command));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("jcmd " + String.join(" ", command) + ": " + text);
        }
        return text;
    }
}
