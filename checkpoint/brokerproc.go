package checkpoint

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/leakui/leakui/lab/child"
)

// ServeBroker runs an embedded broker in this process for another one: it writes
// the broker's address as one line to out, then serves until in reaches its end
// (the parent closed the pipe or exited) or ctx ends. `leakui work broker` runs it,
// so a workload's profiles hold the client side only. When ctx ends first, the
// goroutine reading in returns only when in ends; the process is about to exit.
func ServeBroker(ctx context.Context, in io.Reader, out io.Writer) error {
	b, err := StartBroker()
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := fmt.Fprintln(out, b.Addrs()[0]); err != nil {
		return err
	}
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		io.Copy(io.Discard, in)
	}()
	select {
	case <-eof:
	case <-ctx.Done():
	}
	return nil
}

// BrokerProcess is a broker serving in a child process (ServeBroker).
type BrokerProcess struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	addr    string
	done    chan struct{}
	closing atomic.Bool // Close was called: a kill from then on is its own
}

// brokerStartTimeout bounds the wait for the child's address line.
const brokerStartTimeout = 30 * time.Second

// StartBrokerProcess runs argv (with env added to this process's environment) and
// reads the broker's address from its first line of output. The child ends when
// Close closes its stdin, or when this process exits.
func StartBrokerProcess(ctx context.Context, argv, env []string) (*BrokerProcess, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: empty broker command", ErrInvalidConfig)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("broker process: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("broker process: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("broker process: %w", err)
	}
	p := &BrokerProcess{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	line := make(chan string, 1)
	go func() {
		defer close(p.done)
		r := bufio.NewReader(stdout)
		s, _ := r.ReadString('\n')
		line <- s
		io.Copy(io.Discard, r)
		cmd.Wait()
		if st := cmd.ProcessState; st != nil && !st.Exited() && !p.closing.Load() {
			// A signal this process did not send (the kernel's at the CPU time
			// limit the broker inherits, say): told to whoever runs the
			// workload, whose requests fail meanwhile.
			fmt.Fprintf(os.Stderr, "%s: the broker (%s) after %.2f s of CPU time\n", child.HelperKilled, st, (st.UserTime() + st.SystemTime()).Seconds())
		}
	}()
	timer := time.NewTimer(brokerStartTimeout)
	defer timer.Stop()
	select {
	case s := <-line:
		p.addr = strings.TrimSpace(s)
	case <-timer.C:
	case <-ctx.Done():
	}
	if p.addr == "" {
		p.Close()
		return nil, fmt.Errorf("%w: the broker process %s wrote no address", ErrBrokerUnreachable, argv[0])
	}
	if _, err := ParseBrokers(p.addr); err != nil {
		p.Close()
		return nil, fmt.Errorf("%w: the broker process wrote %q", ErrBrokerUnreachable, p.addr)
	}
	return p, nil
}

// Addrs returns the broker's host:port.
func (p *BrokerProcess) Addrs() []string { return []string{p.addr} }

// PID returns the broker's process id.
func (p *BrokerProcess) PID() int { return p.cmd.Process.Pid }

// Close closes the child's stdin and waits for it to exit, killing it after five
// seconds.
func (p *BrokerProcess) Close() error {
	p.closing.Store(true)
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
	return nil
}
