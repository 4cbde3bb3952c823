// UnclosedGzip is the test program of leakui's native memory verdict: it opens
// COUNT GZIPInputStreams over one gzip payload and reads the first record of each
// (offset, size, then the value, as Kafka 0.10's deep iterator reads the first
// inner message of a compressed wrapper). In mode "drop" it then drops each
// stream unclosed, as 0.10.0.0's LogSegment.recover dropped its deep iterators:
// unreachable, but their Inflaters hold zlib's memory until a GC finds them and
// the Cleaner ends them, and with a young generation larger than what the
// streams allocate no GC runs. In mode "close" it closes each stream. zlib's
// inflate state and window are malloc'd by the JDK outside the Java heap and
// outside Native Memory Tracking, so in mode "drop" the resident set grows by
// memory NMT does not see, and only GC.class_histogram -all (which runs no GC)
// still counts the Inflaters.
//
// Usage: java -Xmn160m -XX:NativeMemoryTracking=summary UnclosedGzip drop|close COUNT
//
// It prints "ready" and waits for a line on standard input at the end of each
// phase: after warming up (the capture before), after the streams (the capture
// after), and once more to hold until the test ends (or standard input closes).
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

public final class UnclosedGzip {
    private static final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));

    public static void main(String[] args) throws Exception {
        boolean drop = args[0].equals("drop");
        int count = Integer.parseInt(args[1]);
        byte[] payload = payload(20, 512);

        // Warm up (classes loaded, code compiled), then collect the warm-up's
        // streams, so that the first capture sees none.
        for (int i = 0; i < 500; i++) {
            first(payload).close();
        }
        System.gc();
        ready();

        for (int i = 0; i < count; i++) {
            DataInputStream in = first(payload);
            if (!drop) {
                in.close();
            }
        }
        ready();
        ready();
    }

    // first opens a stream over the payload and reads its first record.
    private static DataInputStream first(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new GZIPInputStream(new ByteArrayInputStream(payload)));
        in.readLong();
        byte[] value = new byte[in.readInt()];
        in.readFully(value);
        return in;
    }

    // payload is records records of valueBytes bytes of letters, each with its
    // offset and size, gzip-compressed.
    private static byte[] payload(int records, int valueBytes) throws IOException {
        Random random = new Random(42);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(bytes))) {
            for (int r = 0; r < records; r++) {
                out.writeLong(r);
                out.writeInt(valueBytes);
                for (int i = 0; i < valueBytes; i++) {
                    out.write('a' + random.nextInt(26));
                }
            }
        }
        return bytes.toByteArray();
    }

    private static void ready() throws IOException {
        System.out.println("ready");
        System.out.flush();
        if (stdin.readLine() == null) {
            System.exit(0);
        }
    }
}
