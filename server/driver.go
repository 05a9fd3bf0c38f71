package server

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/inputguard"
	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// A session's terminal has one reader, one key decoder and one writer, and
// one driver at a time: the menus run as a Bubble Tea program; while a
// game screen is up (a seat, a watcher, a replay) that program has ended
// (no event loop, renderer, cell buffers or input goroutine) and the play
// loop (play) drives the same model on the session's goroutine. The model
// is the menu's state between programs: a new program is built from it
// when the player comes back to the menus.
//
// The model's commands run in the session's own runner, not Bubble Tea's,
// so that a command waiting for something (the chat's next line, a room's
// end) outlives the program it was started in and its message reaches
// whichever driver runs when it comes.
type driver struct {
	ctx    context.Context
	sess   *Session
	term   *terminal
	out    *lockedWriter
	input  *inputguard.SessionReader
	events chan []termkey.Event // decoded keys, from the reader goroutine
	run    cmdRunner
	gm     guardedModel
	notes  *noticeQueue
	win    Window // the latest size (owned by the driver running)
	idle   *lobbyIdle
	// idleEvery is the idle check's period (0: none).
	idleEvery time.Duration

	// handoff: the model went to a game screen during the program, which
	// was asked to quit for the play loop.
	handoff atomic.Bool
	// delivered is the sequence number of the last pumped message the
	// program's filter saw; carry is what a driver took but did not hand
	// on before it stopped, for the next one.
	delivered atomic.Uint64
	acked     chan struct{} // capacity 1: the filter saw a pumped message
	carry     []tea.Msg
	// playing: the play loop set the terminal up (kitty keyboard); the
	// session's end must restore the terminal itself.
	playing bool
	// waits are the model's commands that only wait (tui.WaitMsg): the
	// driver running waits for them with its other inputs, so they cost
	// no goroutine; cases is next's scratch.
	waits []tui.WaitMsg
	cases []reflect.SelectCase
}

// gameScreen reports whether the model shows a game screen, which the play
// loop drives.
func (d *driver) gameScreen() bool {
	g, ok := d.gm.programModel.(interface{ GameScreen() bool })
	return ok && g.GameScreen()
}

// readKeys is the session's one input reader: inputguard's bounded bytes,
// decoded by the session's one decoder, handed to the driver running. It
// ends when the channel's input does (the session's end closes it).
func (d *driver) readKeys() {
	var dec termkey.Decoder
	buf := make([]byte, 1024)
	for {
		n, err := d.input.Read(buf)
		if n > 0 {
			var evs []termkey.Event
			dec.Decode(buf[:n], func(e termkey.Event) { evs = append(evs, e) })
			if len(evs) > 0 {
				select {
				case d.events <- evs:
				case <-d.ctx.Done():
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func eventMsgs(evs []termkey.Event) []tea.Msg {
	msgs := make([]tea.Msg, len(evs))
	for i, e := range evs {
		msgs[i] = e.Msg()
	}
	return msgs
}

// update runs one message through the model (under the guard) and its
// command through the runner.
func (d *driver) update(msg tea.Msg) {
	next, cmd := d.gm.Update(msg)
	d.gm = next.(guardedModel)
	d.run.start(cmd)
}

// menuModel is the model as the menu program sees it: its commands go to
// the session's runner, and when it goes to a game screen the program
// quits so that the play loop takes over.
type menuModel struct {
	d    *driver
	init bool // the model's first program: it runs the model's Init
}

func (m menuModel) Init() tea.Cmd {
	if m.init {
		m.d.run.start(m.d.gm.Init())
	}
	if m.d.gameScreen() {
		m.d.handoff.Store(true)
		m.d.out.mute()
		return tea.Quit
	}
	return nil
}

func (m menuModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.d.update(msg)
	if m.d.gameScreen() && !m.d.handoff.Load() {
		m.d.handoff.Store(true)
		// What the program writes as it ends (its last frame, leaving the
		// alternate screen) must not reach the player: the game screen
		// goes on on this one.
		m.d.out.mute()
		return m, tea.Quit
	}
	return m, nil
}

func (m menuModel) View() tea.View { return m.d.gm.View() }

// pumped is a message the pump hands the program, numbered so that the
// driver knows afterwards whether the program took it.
type pumped struct {
	n   uint64
	msg tea.Msg
}

// filter runs on the program's event loop before each Update.
func (d *driver) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if p, ok := msg.(pumped); ok {
		d.delivered.Store(p.n)
		select {
		case d.acked <- struct{}{}:
		default:
		}
		msg = p.msg
	}
	if _, ok := msg.(tea.SuspendMsg); ok {
		// A client cannot suspend a server-side program (^Z would stop
		// it for good); carry on instead.
		return tea.ResumeMsg{}
	}
	if d.handoff.Load() {
		return msg // the play loop's key handling applies from now on
	}
	// A player's room screen takes the game's keys first.
	return d.term.filter(d.ctx, msg)
}

// windows is the session's window changes; idle ticks when idle is on.
func (d *driver) idleTicker() (<-chan time.Time, func()) {
	if d.idle == nil {
		return nil, func() {}
	}
	t := time.NewTicker(d.idle.every())
	return t.C, t.Stop
}

// next waits for the next messages for the model: keys, a command's
// message, notices, a new window size or the idle check's; nil when the
// session ends.
func (d *driver) next(ctx context.Context, idleTick <-chan time.Time) []tea.Msg {
	for {
		cases := append(d.cases[:0],
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.events)},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.run.out)},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.notes.wake)},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.sess.Windows())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(idleTick)})
		for _, w := range d.waits {
			cases = append(cases,
				reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.Until)},
				reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.Stop)})
		}
		d.cases = cases
		i, v, ok := reflect.Select(cases)
		switch i {
		case 0:
			return nil
		case 1:
			return eventMsgs(v.Interface().([]termkey.Event))
		case 2:
			msg := v.Interface()
			if w, isWait := msg.(tui.WaitMsg); isWait {
				d.waits = append(d.waits, w)
				continue
			}
			return []tea.Msg{msg}
		case 3:
			if ns := d.notes.take(); len(ns) > 0 {
				return ns
			}
		case 4:
			w := v.Interface().(Window)
			d.win = w
			return []tea.Msg{tea.WindowSizeMsg{Width: w.Width, Height: w.Height}}
		case 5:
			if msg, isMsg := d.idle.check(v.Interface().(time.Time), d.input.LastRead()); isMsg {
				return []tea.Msg{msg}
			}
		default:
			k := (i - 6) / 2
			w := d.waits[k]
			d.waits = append(d.waits[:k], d.waits[k+1:]...)
			if (i-6)%2 == 0 {
				// What the wait stood for runs as a command: reading the
				// new state may take a lock or the store.
				d.run.start(func() tea.Msg { return w.Then(ok) })
			}
		}
	}
}

// pump hands the program its messages until the program ends (ended is
// closed once Run has returned); what it took but the program did not
// see is left in d.carry.
func (d *driver) pump(pctx context.Context, p *tea.Program, ended <-chan struct{}) {
	tick, stop := d.idleTicker()
	defer stop()
	pending := d.carry
	d.carry = nil
	var n uint64
	for {
		if len(pending) == 0 {
			if pending = d.next(pctx, tick); pending == nil {
				return
			}
		}
		n++
		p.Send(pumped{n, pending[0]})
		// Send returns once the event loop has received the message, or
		// without it once the program has ended: only the filter knows.
		for d.delivered.Load() < n {
			select {
			case <-d.acked:
				continue
			case <-ended:
			}
			if d.delivered.Load() < n {
				d.carry = pending
				return
			}
		}
		pending = pending[1:]
	}
}

// play drives the model while it shows a game screen, on the session's
// goroutine. It reports whether the session is to end (the model quit or
// the session ended); false: the model is back in the menus.
func (d *driver) play() (quit bool) {
	d.takeTerminal()
	tick, stop := d.idleTicker()
	defer stop()
	pending := d.carry
	d.carry = nil
	for {
		for len(pending) > 0 {
			if !d.gameScreen() {
				d.carry = pending
				d.giveTerminal()
				return false
			}
			msg := pending[0]
			pending = pending[1:]
			if _, ok := msg.(tea.QuitMsg); ok {
				return true
			}
			if msg = d.term.filter(d.ctx, msg); msg != nil {
				d.update(msg)
			}
		}
		if !d.gameScreen() {
			d.giveTerminal()
			return false
		}
		if pending = d.next(d.ctx, tick); pending == nil {
			return true
		}
	}
}

// The kitty keyboard protocol's flags the play screen asks for:
// disambiguated keys (1) and key releases (2), so a held paddle key stops
// when let go. Bubble Tea runs without input and asks for none.
const (
	kittyPush = "\x1b[>3u"
	kittyPop  = "\x1b[<u"
	// restoreTerm is what the play loop writes when the session ends on a
	// game screen: what Bubble Tea writes when it ends (bracketed paste
	// off, cursor shown, the main screen back).
	restoreTerm = "\x1b[?2004l\x1b[?25h\x1b[?1049l"
)

// takeTerminal sets the terminal up for the play screen: the alternate
// screen (a session that went to a game screen at once may have ended its
// program before it drew anything) and the kitty keyboard protocol.
func (d *driver) takeTerminal() {
	d.out.control(func(l *lockedWriter) string {
		seq := kittyPush
		if !l.alt {
			l.alt = true
			l.foreign.Add(1) // the view repaints the whole screen
			seq = "\x1b[?1049h\x1b[?25l\x1b[2J" + seq
		}
		return seq
	})
	d.playing = true
}

// giveTerminal undoes takeTerminal's keyboard mode before a menu program
// takes the terminal again.
func (d *driver) giveTerminal() {
	d.out.control(func(*lockedWriter) string { return kittyPop })
	d.playing = false
}

// restore gives the terminal back as the session ends on a game screen.
func (d *driver) restore() {
	if d.playing {
		d.out.control(func(l *lockedWriter) string { l.alt = false; return kittyPop + restoreTerm })
		d.playing = false
	}
}

// noticeQueue holds notices for the session (whispers, announcements, a
// kick) until the driver running takes them; it never blocks the sender.
type noticeQueue struct {
	mu   sync.Mutex
	msgs []tea.Msg
	wake chan struct{} // capacity 1
}

func (q *noticeQueue) put(msg tea.Msg) {
	q.mu.Lock()
	q.msgs = append(q.msgs, msg)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *noticeQueue) take() []tea.Msg {
	q.mu.Lock()
	defer q.mu.Unlock()
	ms := q.msgs
	q.msgs = nil
	return ms
}

// cmdRunner runs a session's commands, each on a goroutine that ends once
// its message is taken or the session ends, and expands batches and
// sequences as Bubble Tea does.
type cmdRunner struct {
	ctx   context.Context
	out   chan tea.Msg
	guard func(tea.Cmd) tea.Cmd // a panicking command ends the session, not the server
}

func (r *cmdRunner) start(cmd tea.Cmd) {
	if cmd != nil {
		go r.exec(r.guard(cmd))
	}
}

func (r *cmdRunner) exec(cmd tea.Cmd) {
	r.deliver(cmd(), false)
}

// sequenceType is Bubble Tea's (unexported) message for tea.Sequence.
var sequenceType = reflect.TypeOf(tea.Sequence(func() tea.Msg { return nil }, func() tea.Msg { return nil })())

var cmdsType = reflect.TypeOf([]tea.Cmd(nil))

// deliver hands msg on; inSeq: a batch in a sequence ends before the
// sequence's next command runs, as in Bubble Tea.
func (r *cmdRunner) deliver(msg tea.Msg, inSeq bool) {
	switch m := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		if !inSeq {
			for _, c := range m {
				r.start(c)
			}
			return
		}
		var wg sync.WaitGroup
		for _, c := range m {
			if c != nil {
				wg.Go(func() { r.deliver(r.guard(c)(), true) })
			}
		}
		wg.Wait()
		return
	}
	if reflect.TypeOf(msg) == sequenceType {
		// In order: each command's message is taken before the next runs.
		for _, c := range reflect.ValueOf(msg).Convert(cmdsType).Interface().([]tea.Cmd) {
			if c != nil {
				r.deliver(r.guard(c)(), true)
			}
		}
		return
	}
	select {
	case r.out <- msg:
	case <-r.ctx.Done():
	}
}
