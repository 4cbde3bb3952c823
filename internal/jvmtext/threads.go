package jvmtext

import (
	"fmt"
	"strings"
)

// Thread is one thread of a dump.
type Thread struct {
	// Name is the thread's name; Daemon puts "daemon" in its header.
	Name   string
	Daemon bool
	// State is its java.lang.Thread.State line; Status the end of its header
	// ("runnable", "waiting on condition").
	State, Status string
	// Frames are its "at" lines; lines starting with "- " are lock lines, where
	// ADDR becomes an object address.
	Frames []string
}

// Dump writes threads in the layout of jstack on JDK 8 (compare the fixture
// tda-jstack-jdk8-openjdk.log): a time stamp, the "Full thread dump" line, one block
// per thread, the JNI line.
func Dump(stamp string, threads []Thread) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nFull thread dump OpenJDK 64-Bit Server VM (25.382-b05 mixed mode):\n\n", stamp)
	for i, th := range threads {
		daemon := ""
		if th.Daemon {
			daemon = "daemon "
		}
		fmt.Fprintf(&b, "\"%s\" #%d %sprio=5 os_prio=0 tid=0x00007f92b0%06x nid=0x%x %s [0x00007f92f5%06x]\n", th.Name, i+10, daemon, i*0x800, 0x2a00+i, th.Status, i*0x1000)
		fmt.Fprintf(&b, "   java.lang.Thread.State: %s\n", th.State)
		for j, f := range th.Frames {
			if strings.HasPrefix(f, "- ") {
				fmt.Fprintf(&b, "\t%s\n", strings.Replace(f, "ADDR", fmt.Sprintf("<0x00000000d7%02x%04x>", i%256, j), 1))
			} else {
				fmt.Fprintf(&b, "\tat %s\n", f)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("JNI global references: 412\n\n")
	return b.String()
}

// BigDump returns a jstack dump of n threads spread over about n/50 distinct stacks
// of 20 to 40 frames, with lock lines, as a large application server has.
func BigDump(n int) string {
	threads := make([]Thread, n)
	for i := range threads {
		stack := i % max(1, n/50)
		depth := 20 + stack%21
		frames := make([]string, 0, depth+2)
		for f := range depth {
			frames = append(frames, fmt.Sprintf("com.example.service%03d.Handler%02d.step%02d(Handler%02d.java:%d)", stack, f%7, f, f%7, 100+f))
			if f == 2 {
				frames = append(frames, "- locked ADDR (a java.lang.Object)")
			}
		}
		frames = append(frames, "java.lang.Thread.run(Thread.java:750)")
		threads[i] = Thread{Name: fmt.Sprintf("pool-%d-thread-%d", stack, i), Daemon: i%3 == 0,
			State: "WAITING (parking)", Status: "waiting on condition", Frames: frames}
	}
	return Dump("2024-05-01 12:00:00", threads)
}
