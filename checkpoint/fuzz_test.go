package checkpoint

import (
	"errors"
	"strings"
	"testing"
)

func FuzzDecodeCheckpoint(f *testing.F) {
	f.Add(Checkpoint{Offsets: map[SSP]string{{"kafka", "events", 3}: "42"}}.Encode())
	f.Add([]byte(`{"kafka.a.0":{"system":"kafka","stream":"a","partition":"0","offset":"1"},"kafka.b.1":{"system":"kafka","stream":"b","partition":"1","offset":"2"}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"x":{"system":"kafka","stream":"a","partition":"-1","offset":"1"}}`))
	f.Add([]byte(`{"x":{"system":"kafka","stream":"a","partition":"0","offset":"1"}} trailing`))
	f.Add([]byte(`{"x":{"system":"kafka","stream":"a","partition":"0","offset":"1","extra":1}}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := DecodeCheckpoint(data)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("error %v does not wrap ErrBadCheckpoint", err)
			}
			return
		}
		again, err := DecodeCheckpoint(cp.Encode())
		if err != nil {
			t.Fatalf("re-decoding %q: %v", cp.Encode(), err)
		}
		if !again.Equal(cp) {
			t.Fatalf("round trip changed %v into %v", cp, again)
		}
		_ = cp.String()
	})
}

func FuzzParseBrokers(f *testing.F) {
	for _, s := range []string{"a:9092", "a:1,b:2", "[::1]:9092", "", ",,", "a:0", "a:99999", "a:b", ":1", "a:1,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		brokers, err := ParseBrokers(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("error %v does not wrap ErrInvalidConfig", err)
			}
			return
		}
		if len(brokers) == 0 {
			t.Fatal("no error and no broker")
		}
		again, err := ParseBrokers(strings.Join(brokers, ","))
		if err != nil || strings.Join(again, ",") != strings.Join(brokers, ",") {
			t.Fatalf("%q parsed to %q, which parses to %q, %v", s, brokers, again, err)
		}
	})
}

func TestDecodeCheckpointRejectsBadInput(t *testing.T) {
	for _, bad := range []string{
		``, `null`, `[]`, `"x"`, `{"a":`, `{"a":1}`,
		`{"x":{"system":"","stream":"a","partition":"0","offset":"1"}}`,
		`{"x":{"system":"k","stream":"a","partition":"x","offset":"1"}}`,
		`{"x":{"system":"k","stream":"a","partition":"2147483648","offset":"1"}}`,
		`{"x":{"system":"k","stream":"a","partition":"0","offset":""}}`,
		`{"x":{"system":"k","stream":"a","partition":"0","offset":"1"},"y":{"system":"k","stream":"a","partition":"0","offset":"2"}}`,
		`{"x":{"system":"k","stream":"a","partition":"0","offset":"1"}}{}`,
		`{"x":{"system":"k","stream":"a","partition":"0","offset":"1","more":"field"}}`,
		`{"pad":"` + strings.Repeat("x", MaxCheckpointBytes) + `"}`,
	} {
		if cp, err := DecodeCheckpoint([]byte(bad)); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("DecodeCheckpoint(%.60q) = %v, %v; want ErrBadCheckpoint", bad, cp, err)
		}
	}
	for _, key := range [][]byte{nil, {0xff, 0xfe}, []byte(strings.Repeat("k", 1025))} {
		if _, err := decodeTaskName(key); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("decodeTaskName(%.20q) = %v, want ErrBadCheckpoint", key, err)
		}
	}
}

func TestCheckpointEncodingIsSamzasJSON(t *testing.T) {
	cp := Checkpoint{Offsets: map[SSP]string{{"kafka", "views", 1}: "7", {"kafka", "clicks", 0}: "12"}}
	want := `{"kafka.clicks.0":{"system":"kafka","stream":"clicks","partition":"0","offset":"12"},` +
		`"kafka.views.1":{"system":"kafka","stream":"views","partition":"1","offset":"7"}}`
	if got := string(cp.Encode()); got != want {
		t.Errorf("Encode = %s\nwant     %s", got, want)
	}
	if got := cp.String(); got != "CheckpointV1 [OFFSETS={SystemStreamPartition [kafka, clicks, 0]=12, SystemStreamPartition [kafka, views, 1]=7}]" {
		t.Errorf("String = %s", got)
	}
}
