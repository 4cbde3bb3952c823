package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/leakui/leakui/lab/child"
)

// kfake3 is the testdata/kfake3 helper running as its own process: three kfake
// brokers on loopback.
type kfake3 struct {
	brokers string
	stdin   io.WriteCloser
	done    chan error
}

// startKfake3 builds and starts the three-broker cluster; it stops when the test
// ends.
func startKfake3(t *testing.T) *kfake3 {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kfake3")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/kfake3").CombinedOutput(); err != nil {
		t.Fatalf("go build kfake3: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	k := &kfake3{stdin: stdin, done: make(chan error, 1)}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() { k.done <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close() // kfake3 stops when its stdin closes
		select {
		case <-k.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-k.done
			t.Error("kfake3 did not stop when its stdin closed")
		}
	})
	if err != nil {
		t.Fatalf("kfake3 printed no brokers: %v", err)
	}
	k.brokers = strings.TrimSpace(line)
	if n := len(strings.Split(k.brokers, ",")); n != 3 {
		t.Fatalf("kfake3 brokers %q: %d, want 3", k.brokers, n)
	}
	return k
}

// topics lists the cluster's topics with the broker ids of each partition's
// replicas, asked of the cluster itself.
func (k *kfake3) topics(t *testing.T) map[string][][]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &kafka.Client{Addr: kafka.TCP(strings.Split(k.brokers, ",")...), Transport: &kafka.Transport{}}
	defer c.Transport.(*kafka.Transport).CloseIdleConnections()
	resp, err := c.Metadata(ctx, &kafka.MetadataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Brokers) != 3 {
		t.Errorf("the cluster has %d brokers, want 3", len(resp.Brokers))
	}
	out := map[string][][]int{}
	for _, topic := range resp.Topics {
		for _, p := range topic.Partitions {
			var ids []int
			for _, r := range p.Replicas {
				ids = append(ids, r.ID)
			}
			out[topic.Name] = append(out[topic.Name], ids)
		}
	}
	return out
}

// checkpointChild runs `leakui work checkpoint -json args…` as a child process and
// returns its done event; with hold it stops reading there and returns the
// still-running command too.
func checkpointChild(t *testing.T, hold bool, args ...string) (child.Event, *exec.Cmd) {
	t.Helper()
	args = append([]string{"work", "checkpoint", "-json"}, args...)
	if hold {
		args = append(args, "-hold", "1m")
	}
	cmd := exec.Command(leakuiBinary(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e child.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Kind == child.EventDone {
			if !hold {
				io.Copy(io.Discard, stdout)
				if err := cmd.Wait(); err != nil {
					t.Fatalf("leakui %v: %v\n%s", args, err, stderr.String())
				}
			}
			return e, cmd
		}
		if e.Kind == child.EventError {
			t.Fatalf("leakui %v: %s\n%s", args, e.Message, stderr.String())
		}
	}
	cmd.Wait()
	t.Fatalf("leakui %v ended without a done event\n%s", args, stderr.String())
	return child.Event{}, nil
}

// deterministic drops the counters that measure time rather than behaviour.
func deterministic(c map[string]int64) map[string]int64 {
	out := maps.Clone(c)
	delete(out, "elapsed_ms")
	return out
}

// TestCheckpointOnThreeBrokers runs SAMZA-2785 against a separate three-broker
// cluster and gets the counters of the embedded broker; the checkpoint topic has
// three replicas while it runs and is gone when the workload exits.
func TestCheckpointOnThreeBrokers(t *testing.T) {
	k := startKfake3(t)
	spec := []string{"-variant", "leaky", "-cycles", "12", "-tasks", "3", "-read-fraction", "0.25"}
	embedded, _ := checkpointChild(t, false, spec...)
	if !strings.Contains(embedded.Message, "(kfake in process ") {
		t.Fatalf("embedded run: %s", embedded.Message)
	}
	cluster, cmd := checkpointChild(t, true, append(spec, "-brokers", k.brokers)...)
	if !strings.Contains(cluster.Message, "brokers="+k.brokers+":") {
		t.Errorf("cluster run: %s", cluster.Message)
	}
	if e, c := deterministic(embedded.Counters), deterministic(cluster.Counters); !maps.Equal(e, c) {
		t.Errorf("counters differ:\nembedded %v\ncluster  %v", e, c)
	}
	// Rebalances 2, 6 and 10 read (round(k/4) grows); the other nine leak.
	if c := cluster.Counters; c["consumer_starts"] != 12 || c["consumer_stops"] != 3 || c["open_consumers"] != 9 || c["checkpoints_read"] != 9 {
		t.Errorf("cluster counters %v", c)
	}
	const topic = "__samza_checkpoint_ver_1_for_leakui-checkpoint_1"
	parts := k.topics(t)[topic]
	if len(parts) != 1 || len(parts[0]) != 3 || parts[0][0] == parts[0][1] || parts[0][1] == parts[0][2] || parts[0][0] == parts[0][2] {
		t.Errorf("topic %s while the workload holds: partitions with replicas %v, want one partition on 3 brokers", topic, parts)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the workload ended with %v on SIGTERM while holding", err)
	}
	if left := k.topics(t); len(left) != 0 {
		t.Errorf("topics left on the cluster: %v", left)
	}
}

// TestLabRunsOnThreeBrokers runs the leaky and the fixed variant at the same time
// through `leakui serve -brokers` on the three-broker cluster, and the same two on
// the embedded broker: same verdicts, same counters, and no topic left behind.
// Each run has a topic of its own (its id is the job id), or the two would collide.
func TestLabRunsOnThreeBrokers(t *testing.T) {
	k := startKfake3(t)
	specs := []string{
		`{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":12,"tasks":3}`,
		`{"workload":"checkpoint","variant":"pr1674","mode":"active","cycles":12,"tasks":3}`,
	}
	runBoth := func(s *server) [2]runState {
		var ids [2]string
		for i, spec := range specs {
			code, out := s.post(t, "/api/runs", spec)
			if code != http.StatusAccepted {
				t.Fatalf("POST %s: %d %v", spec, code, out)
			}
			ids[i] = out["id"]
		}
		return [2]runState{s.waitRun(t, ids[0], 2*time.Minute), s.waitRun(t, ids[1], 2*time.Minute)}
	}
	onCluster := runBoth(startServer(t, t.TempDir(), "-brokers", k.brokers, "-max-runs", "2"))
	embedded := runBoth(startServer(t, t.TempDir(), "-max-runs", "2"))
	for i, want := range []string{"leak", "no-leak"} {
		c, e := onCluster[i], embedded[i]
		if c.Status != "done" || c.Verdict != want || e.Status != "done" || e.Verdict != want {
			t.Errorf("run %d: on the cluster %s/%s (%s), embedded %s/%s; want done/%s", i, c.Status, c.Verdict, c.Error, e.Status, e.Verdict, want)
		}
		if dc, de := deterministic(c.Counters), deterministic(e.Counters); !maps.Equal(dc, de) {
			t.Errorf("run %d counters differ:\ncluster  %v\nembedded %v", i, dc, de)
		}
	}
	if left := k.topics(t); len(left) != 0 {
		t.Errorf("topics left on the cluster: %v", left)
	}
}
