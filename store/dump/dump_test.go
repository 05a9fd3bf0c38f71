package dump

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func sample() []Record {
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 123456789, time.UTC)
	return []Record{
		{Player: &Player{Fingerprint: "SHA256:a", Name: "ann", FirstSeen: t0, LastSeen: t0}},
		{Match: &Match{ID: 1, Mode: "pong-1v1", Start: t0, Players: []MatchPlayer{{Fingerprint: "SHA256:a", Place: 1}}, Replay: true}},
		{Replay: &Replay{MatchID: 1, Data: []byte{0, 1, 2, 0xff, '\n'}}},
	}
}

func write(t *testing.T, recs []Record) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, "test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	n, err := w.Close()
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("Close: %d bytes, %v; wrote %d", n, err, b.Len())
	}
	return b.Bytes()
}

func readAll(raw []byte) ([]Record, error) {
	var got []Record
	_, err := Read(bytes.NewReader(raw), func(r Record) error { got = append(got, r); return nil })
	return got, err
}

func TestReadWhatWasWritten(t *testing.T) {
	raw := write(t, sample())
	if !IsDump(raw[:10]) {
		t.Errorf("IsDump(%q) is false", raw[:10])
	}
	got, err := readAll(raw)
	if err != nil || len(got) != 3 {
		t.Fatalf("read %d records, %v", len(got), err)
	}
	m := NewMerge()
	for _, r := range sample() {
		if err := m.Have(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range got {
		if isNew, err := m.Add(r); isNew || err != nil {
			t.Errorf("%s read back: new %v, %v; want the same record", r.describe(), isNew, err)
		}
	}
}

// TestReadRefuses: a dump cut short (a full disk, a dropped connection),
// one from a newer build, one with a field this build does not know, and
// a file that is not a dump are refused, never read in part as if whole.
func TestReadRefuses(t *testing.T) {
	raw := write(t, sample())
	lines := bytes.SplitAfter(raw, []byte("\n"))
	for _, tc := range []struct {
		name string
		raw  []byte
		want error
		text string
	}{
		{"cut at a line", bytes.Join(lines[:3], nil), ErrCutShort, "no end line after 2 records"},
		{"cut mid-line", raw[:len(raw)-30], nil, "line"},
		{"end line miscounts", append(bytes.Join(lines[:2], nil), lines[4]...), nil, "counts 3 records, the file holds 1"},
		{"newer", []byte(`{"format":"termarena-dump","v":2}` + "\n"), ErrTooNew, "format version 2"},
		{"unknown field", append(append([]byte{}, lines[0]...), []byte(`{"player":{"fp":"x","name":"y","first_seen":"2026-01-01T00:00:00Z","last_seen":"2026-01-01T00:00:00Z","karma":3}}`+"\n")...), nil, "unknown field"},
		{"two things in a line", append(append([]byte{}, lines[0]...), []byte(`{"mute":{"fp":"x","actor":"a","created":"2026-01-01T00:00:00Z"},"leaves":{"fp":"x","strikes":1,"last":"2026-01-01T00:00:00Z","until":"2026-01-01T00:00:00Z"}}`+"\n")...), nil, "exactly one"},
		{"not a dump", []byte("\x00\x00\x00\x00bbolt"), ErrNotDump, "not a termarena-dump header"},
		{"empty", nil, ErrNotDump, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(tc.raw)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("Read: %v; want %v saying %q", err, tc.want, tc.text)
			}
		})
	}
}

// TestMergeTimesAsBackendsKeepThem: a record read back from PostgreSQL
// (microseconds, the server's time zone) is the record that was copied.
func TestMergeTimesAsBackendsKeepThem(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 123456789, time.UTC)
	m := NewMerge()
	if err := m.Have(Record{Leaves: &Leaves{Fingerprint: "SHA256:a", Strikes: 1, Last: t0.Truncate(time.Microsecond).In(time.FixedZone("X", 3600)), Until: t0}}); err != nil {
		t.Fatal(err)
	}
	if isNew, err := m.Add(Record{Leaves: &Leaves{Fingerprint: "SHA256:a", Strikes: 1, Last: t0, Until: t0}}); isNew || err != nil {
		t.Errorf("same leaves: new %v, %v", isNew, err)
	}
	var conflict *ConflictError
	if _, err := m.Add(Record{Leaves: &Leaves{Fingerprint: "SHA256:a", Strikes: 2, Last: t0, Until: t0}}); !errors.As(err, &conflict) {
		t.Errorf("other strikes: %v; want a conflict", err)
	}
	if _, err := m.Add(Record{Leaves: &Leaves{Fingerprint: "SHA256:a", Strikes: 1, Last: t0.Add(time.Microsecond), Until: t0}}); !errors.As(err, &conflict) {
		t.Errorf("a microsecond later: %v; want a conflict", err)
	}
	c := m.Counts()
	if c.Same[KindLeaves] != 1 || c.Copied[KindLeaves] != 0 {
		t.Errorf("counts %+v", c)
	}
}
