package main

import (
	"bytes"
	"errors"
	"testing"
)

// The address players are told to ssh to: --advertise when set, the
// listener's own address when it is a particular host, the host name
// with the port when it listens everywhere.
func TestAdvertised(t *testing.T) {
	host := func() (string, error) { return "box7", nil }
	noHost := func() (string, error) { return "", errors.New("no name") }
	for _, c := range []struct {
		flag, listening string
		hostname        func() (string, error)
		want            string
	}{
		{"play.example.com:22", "[::]:2222", host, "play.example.com:22"},
		{"", "127.0.0.1:40001", host, "127.0.0.1:40001"},
		{"", "10.0.0.5:2222", host, "10.0.0.5:2222"},
		{"", "[::]:2222", host, "box7:2222"},
		{"", "0.0.0.0:2222", host, "box7:2222"},
		{"", ":2222", host, "box7:2222"},
		{"", "[::]:2222", noHost, "localhost:2222"},
	} {
		if got := advertised(c.flag, c.listening, c.hostname); got != c.want {
			t.Errorf("advertised(%q, %q) = %q, want %q", c.flag, c.listening, got, c.want)
		}
	}
}

// An --advertise that is not HOST:PORT is a usage error before anything
// starts.
func TestAdvertiseFlagChecked(t *testing.T) {
	for _, bad := range []string{"play.example.com", ":2222", "host:0", "host:x", "host:70000"} {
		if err := checkAdvertise(bad); err == nil {
			t.Errorf("--advertise %q accepted", bad)
		}
	}
	for _, good := range []string{"", "play.example.com:2222", "[2001:db8::1]:22", "10.0.0.5:2222"} {
		if err := checkAdvertise(good); err != nil {
			t.Errorf("--advertise %q refused: %v", good, err)
		}
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"--advertise", "nohostport"}, func(string) string { return "" }, &out, &errOut); code != 2 {
		t.Errorf("--advertise nohostport: exit %d, want 2 (%s)", code, errOut.String())
	}
}
