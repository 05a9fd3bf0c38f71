package inputguard

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// csiWithParams builds ESC [ 1;1;...;1 m with n parameter fields.
func csiWithParams(n int) string {
	return "\x1b[" + strings.TrimSuffix(strings.Repeat("1;", n), ";") + "m"
}

// rawTokenize runs ansi.DecodeSequence over b the way ultraviolet's
// deserializeWin32Input does: one pooled parser (32 parameter slots) for the
// whole buffer.
func rawTokenize(b []byte) (panicked any) {
	defer func() { panicked = recover() }()
	p := ansi.GetParser()
	defer ansi.PutParser(p)
	var state byte
	for len(b) > 0 {
		_, _, n, ns := ansi.DecodeSequence(b, state, p)
		state = ns
		b = b[n:]
	}
	return nil
}

// uvDecode runs ultraviolet's event decoder over b, as its scanner does once
// the ESC timeout has expired. It also reports an UnknownEvent: the scanner
// answers one by keeping its whole buffer and waiting for more input.
func uvDecode(b []byte) (panicked any) {
	defer func() { panicked = recover() }()
	var d uv.EventDecoder
	for len(b) > 0 {
		n, ev := d.Decode(b)
		if n <= 0 {
			return fmt.Sprintf("Decode made no progress at %q", b)
		}
		if u, ok := ev.(uv.UnknownEvent); ok {
			return fmt.Sprintf("UnknownEvent %q", string(u))
		}
		b = b[n:]
	}
	return nil
}

// chunkReader hands out one chunk per Read, then io.EOF.
type chunkReader struct{ chunks [][]byte }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if n == len(c.chunks[0]) {
		c.chunks = c.chunks[1:]
	} else {
		c.chunks[0] = c.chunks[0][n:]
	}
	return n, nil
}

// streamEvents runs the reader Bubble Tea's input goroutine runs
// (uv.TerminalReader.StreamEvents, as created in bubbletea's
// initInputReader) over r, in this goroutine so a panic can be recovered.
func streamEvents(r io.Reader, escTimeout time.Duration) (events []uv.Event, panicked any, stack []byte) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // frees the reading goroutine if the decoder panicked
	tr := uv.NewTerminalReader(r, "xterm-256color")
	tr.EscTimeout = escTimeout
	evc := make(chan uv.Event)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range evc {
			events = append(events, ev)
		}
	}()
	func() {
		defer func() {
			if panicked = recover(); panicked != nil {
				stack = debug.Stack()
			}
		}()
		_ = tr.StreamEvents(ctx, evc)
	}()
	close(evc)
	<-done
	return events, panicked, stack
}

func TestDecoderPanicsOnManyParams(t *testing.T) {
	for _, n := range []int{33, 100} {
		attack := []byte(csiWithParams(n))

		if r := rawTokenize(attack); r == nil || !strings.Contains(fmt.Sprint(r), "index out of range [32]") {
			t.Errorf("%d params: ansi.DecodeSequence recovered %v, want index out of range [32]", n, r)
		}

		_, r, stack := streamEvents(bytes.NewReader(attack), time.Hour)
		if r == nil {
			t.Fatalf("%d params: uv.TerminalReader.StreamEvents did not panic; the threat this package exists for is gone", n)
		}
		if !bytes.Contains(stack, []byte("deserializeWin32Input")) {
			t.Errorf("%d params: panic %v not in deserializeWin32Input:\n%s", n, r, stack)
		}

		// Through the guard: no panic, one drop.
		g := NewReader(bytes.NewReader(attack), DefaultLimits())
		_, r, _ = streamEvents(g, time.Hour)
		if r != nil {
			t.Errorf("%d params through Reader: decoder panicked: %v", n, r)
		}
		if g.Dropped() != 1 {
			t.Errorf("%d params through Reader: Dropped = %d, want 1", n, g.Dropped())
		}
	}
}

// 32 fields is the most the decoder survives; MaxParams is clamped to it.
func TestDecoderSurvivesThirtyTwoParams(t *testing.T) {
	if r := rawTokenize([]byte(csiWithParams(32))); r != nil {
		t.Fatalf("32 params panicked: %v", r)
	}
	g := NewReader(strings.NewReader(csiWithParams(33)), Limits{MaxParams: 1000})
	out, _ := io.ReadAll(g)
	if len(out) != 0 || g.Dropped() != 1 {
		t.Fatalf("MaxParams 1000 let 33 params through: %q", out)
	}
}

// The decoder treats unencoded 8-bit C1 bytes as introducers, so an 8-bit
// CSI kills it just the same.
func TestDecoderPanicsOnEightBitCSI(t *testing.T) {
	attack := "\x9b" + strings.TrimPrefix(csiWithParams(33), "\x1b[")
	if r := rawTokenize([]byte(attack)); r == nil {
		t.Fatal("8-bit CSI with 33 params did not panic ansi.DecodeSequence")
	}
	var d uv.EventDecoder
	if _, ev := d.Decode([]byte("\x9bA")); fmt.Sprint(ev) != fmt.Sprint(uv.KeyPressEvent{Code: uv.KeyUp}) {
		t.Errorf("uv Decode(0x9B 'A') = %#v, want the Up key", ev)
	}
	g := NewReader(strings.NewReader(attack+"x"), DefaultLimits())
	out, _ := io.ReadAll(g)
	if string(out) != "x" {
		t.Fatalf("8-bit CSI through Reader = %q, want %q", out, "x")
	}
}

const childEnv = "INPUTGUARD_CRASH_CHILD"

type quitModel struct{}

func (quitModel) Init() tea.Cmd { return nil }
func (m quitModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "q" {
		return m, tea.Quit
	}
	return m, nil
}
func (quitModel) View() tea.View { return tea.NewView("") }

// TestProgramDies shows the whole process dies, not just one session: a real
// tea.Program in a child process is fed the attack and then "q".
func TestProgramDies(t *testing.T) {
	if mode := os.Getenv(childEnv); mode != "" {
		var in io.Reader = strings.NewReader(csiWithParams(33) + "q")
		if mode == "guarded" {
			in = NewReader(in, DefaultLimits())
		}
		p := tea.NewProgram(quitModel{}, tea.WithInput(in), tea.WithOutput(io.Discard),
			tea.WithoutSignalHandler(), tea.WithWindowSize(80, 24))
		if _, err := p.Run(); err != nil {
			t.Fatalf("run: %v", err)
		}
		fmt.Println("survived")
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, mode := range []string{"raw", "guarded"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProgramDies$")
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%s child hung:\n%s", mode, out.String())
		}
		switch mode {
		case "raw":
			if err == nil || !strings.Contains(out.String(), "index out of range [32]") ||
				!strings.Contains(out.String(), "deserializeWin32Input") {
				t.Errorf("raw child: err=%v, want a crash in deserializeWin32Input; output:\n%s", err, out.String())
			}
		case "guarded":
			if err != nil || !strings.Contains(out.String(), "survived") {
				t.Errorf("guarded child: err=%v; output:\n%s", err, out.String())
			}
		}
	}
}
