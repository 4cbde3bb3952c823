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
	for _, key := range [][]byte{nil, {0xff, 0xfe}, []byte(strings.Repeat("k", maxKeyBytes+1)), []byte("Partition 0"),
		[]byte(`{"taskName":"Partition 0"}`), []byte(`{"type":"checkpoint"}`), []byte(`{"taskName":"","type":"checkpoint"}`),
		[]byte(`{"taskName":"a","type":"checkpoint","other":"x"}`), []byte(`{"taskName":"a","type":"checkpoint"}{}`),
		[]byte(`{"taskName":1,"type":"checkpoint"}`)} {
		if k, err := DecodeKey(key); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("DecodeKey(%.40q) = %v, %v; want ErrBadCheckpoint", key, k, err)
		}
	}
}

func FuzzDecodeKey(f *testing.F) {
	f.Add(CheckpointKey("Partition 0").Encode())
	f.Add([]byte(`{"taskName":"t","type":"checkpoint-v2"}`))
	f.Add([]byte(`{"taskName":"\u0000\n","type":"x","systemstreampartition-grouper-factory":null}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := DecodeKey(data)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("error %v does not wrap ErrBadCheckpoint", err)
			}
			return
		}
		again, err := DecodeKey(k.Encode())
		if err != nil || again != k {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", k.Encode(), again, err, k)
		}
		_ = k.String()
	})
}

func FuzzParseSamzaConfig(f *testing.F) {
	for _, s := range []string{ConfigStopAfterFirstRead + "=false", ConfigFetchThreshold("kafka") + "=50000", "a=b", "=", "x",
		ConfigStopAfterFirstRead + "=TRUE", ConfigFetchThreshold("kafka") + "=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mode, threshold, err := ParseSamzaConfig([]string{s})
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("error %v does not wrap ErrInvalidConfig", err)
			}
			return
		}
		if mode == "" && threshold == 0 {
			t.Fatalf("%q parsed to nothing without an error", s)
		}
		if threshold < 0 || threshold > MaxFetchThreshold {
			t.Fatalf("%q: threshold %d", s, threshold)
		}
	})
}

func TestCheckpointKeyIsSamzasJSON(t *testing.T) {
	// KafkaCheckpointLogKeySerde's documented example (KafkaCheckpointLogKeySerde.java:33).
	want := `{"systemstreampartition-grouper-factory":"org.apache.samza.container.grouper.stream.GroupByPartitionFactory","taskName":"Partition 0","type":"checkpoint"}`
	if got := string(CheckpointKey("Partition 0").Encode()); got != want {
		t.Errorf("key = %s\nwant  %s", got, want)
	}
	k, err := DecodeKey([]byte(want))
	if err != nil || k != CheckpointKey("Partition 0") {
		t.Errorf("DecodeKey = %+v, %v", k, err)
	}
}

func TestParseSamzaConfig(t *testing.T) {
	mode, threshold, err := ParseSamzaConfig([]string{ConfigStopAfterFirstRead + "=false", " systems.kafka.samza.fetch.threshold = 50000"})
	if mode != Standby || threshold != 50000 || err != nil {
		t.Errorf("ParseSamzaConfig = %q, %d, %v", mode, threshold, err)
	}
	if mode, _, err := ParseSamzaConfig([]string{ConfigStopAfterFirstRead + "=true"}); mode != Active || err != nil {
		t.Errorf("stop.after.first.read=true gives %q, %v", mode, err)
	}
	for _, bad := range []string{"x", "=1", ConfigStopAfterFirstRead + "=yes", ConfigFetchThreshold("kafka") + "=0",
		ConfigFetchThreshold("other") + "=5", "task.checkpoint.system=kafka"} {
		if _, _, err := ParseSamzaConfig([]string{bad}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("ParseSamzaConfig(%q) = %v, want ErrInvalidConfig", bad, err)
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
