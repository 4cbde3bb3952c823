// Command kfake3 is a test helper, not part of leakui: a Kafka cluster of three
// franz-go kfake brokers on loopback, in its own process, for the tests that point
// `leakui work checkpoint -brokers` at a multi-broker cluster. It prints the
// brokers as one line "host:port,host:port,host:port" on stdout and runs until
// stdin closes or it gets SIGINT/SIGTERM.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("leakui-kfake3"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake3:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(c.ListenAddrs(), ","))
	stop := make(chan struct{}, 2)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		stop <- struct{}{}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-stop:
	case <-sig:
	}
	c.Close()
}
