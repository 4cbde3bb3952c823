package logs

import (
	"fmt"
	"testing"
)

// TestLogRequiredSets checks the prefilter literals found in typical log
// regexps, and the pick by what is rare in the input.
func TestLogRequiredSets(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // the set picked without a sample
	}{
		{`consumer (\d+) started`, `["consumer "]`},
		{`(WARN|ERROR) .*Consumer`, `["Consumer"]`},
		{`(?i)stopping samza`, `["topping "/i]`},
		{`ERROR|WARN|FATAL`, `["ERROR" "WARN" "FATAL"]`},
		{`a\x{fffd}bc`, `["bc"]`},
		{`(?i)kss`, `[]`},
		{`\d+ ms`, `[" ms"]`},
		{`x*`, `[]`},
		{`(foo)?bar`, `["bar"]`},
		{`^(?:ab){2,}$`, `["ab"]`},
	} {
		got := fmt.Sprint(bestReqs(requiredSets(tc.expr), nil))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.expr, got, tc.want)
		}
	}
	// With a sample where Consumer is everywhere, the alternatives win.
	sample := []byte("INFO KafkaSystemConsumer x\nINFO ConsumerCoordinator y\n")
	if got := fmt.Sprint(bestReqs(requiredSets(`(WARN|ERROR) .*Consumer`), sample)); got != `["WARN" "ERROR"]` {
		t.Errorf("with a sample full of Consumer: %s, want the WARN|ERROR set", got)
	}
}
