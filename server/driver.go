package server

import (
	"context"
	"reflect"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/inputguard"
	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// A session's terminal has one reader, one key decoder and one writer, and
// one driver at a time, both on the session's goroutine: the menus loop
// (menus) runs the model's Update and draws its view with a cell renderer
// of its own (menuScreen), only after messages and only what changed;
// while a game screen is up (a seat, a watcher, a replay) the play loop
// (play) drives the same model and the game screen draws. Handing over is
// a switch of who draws (takeTerminal, giveTerminal): no Bubble Tea
// program, renderer ticker or event loop runs at any time.
//
// The model's commands run in the session's own runner, so a command
// waiting for something (the chat's next line, a room's end) outlives the
// loop it was started in and its message reaches whichever loop runs
// when it comes.
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

	scr *menuScreen // the menus' renderer
	// carry is what a loop took but did not run before it handed over,
	// for the next one.
	carry []tea.Msg
	// playing: the play loop has the terminal (kitty keyboard, game
	// frames); the session's end must restore the terminal itself.
	playing bool
	// waits are the model's commands that only wait (tui.WaitMsg): the
	// driver running waits for them with its other inputs, so they cost
	// no goroutine; cases is next's scratch.
	waits []tui.WaitMsg
	cases []reflect.SelectCase
	// held are waits whose channel fired before their NotBefore: their
	// Then runs when heldTimer fires (nil: none held), so a burst of
	// changes is one read.
	held      []heldWait
	heldTimer *time.Timer
	// idleTimer fires when the idle check is next due (nil: not set).
	idleTimer *time.Timer
	// screen is the player's room screen the driver runs (the lobby
	// handed it over: terminal.Drive) until screenCtx ends; nil: none.
	screen    *tui.RoomView
	screenCtx context.Context
	// restTimer fires when the menus have shown the same view for
	// restAfter (nil: not set): their cells are let go until the next
	// draw (menuScreen.rest). 0: never.
	restTimer *time.Timer
	restAfter time.Duration
}

// heldWait is a fired wait waiting for its NotBefore.
type heldWait struct {
	w  tui.WaitMsg
	ok bool
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

// armIdle sets the idle check's timer for when it is next due (none
// when the check is off or has nothing to wait for).
func (d *driver) armIdle() {
	if d.idleTimer != nil {
		d.idleTimer.Stop()
		d.idleTimer = nil
	}
	if d.idle == nil {
		return
	}
	due := d.idle.due(d.input.LastRead())
	if due.IsZero() {
		return
	}
	// Not sooner than a tenth of a second: a clock that says "now" again
	// must not spin the loop.
	d.idleTimer = time.NewTimer(max(time.Until(due), 100*time.Millisecond))
}

// checkIdle runs the idle check now and sets its timer again.
func (d *driver) checkIdle() (tea.Msg, bool) {
	msg, isMsg := d.idle.check(time.Now(), d.input.LastRead())
	d.armIdle()
	return msg, isMsg
}

// next waits for the next messages for the model: keys, a command's
// message, notices, a new window size or the idle check's; nil when the
// session ends.
func (d *driver) next(ctx context.Context) []tea.Msg {
	for {
		var idleTick <-chan time.Time
		if d.idleTimer != nil {
			idleTick = d.idleTimer.C
		}
		var held <-chan time.Time
		if d.heldTimer != nil {
			held = d.heldTimer.C
		}
		d.syncScreen()
		// The room screen's, when the driver runs one: its room left, its
		// clock's beat, its keys (nil channels, never ready, when not).
		var left, beat <-chan struct{}
		var screenEvents <-chan tui.ScreenEvent
		if d.screen != nil {
			left = d.screenCtx.Done()
			beat, screenEvents = d.screen.Wakes()
		}
		var rest <-chan time.Time
		if d.restTimer != nil {
			rest = d.restTimer.C
		}
		sc := selectCases{idleTick: idleTick, held: held, rest: rest, left: left, beat: beat, screenEvents: screenEvents}
		var i int
		var ok bool
		var got received
		if len(d.waits) <= typedWaits {
			i, ok = d.selectTyped(ctx, &sc, &got)
		} else {
			i, ok = d.selectReflect(ctx, &sc, &got)
		}
		switch i {
		case 0:
			return nil
		case 1:
			msgs := eventMsgs(got.events)
			if d.idle != nil && d.idle.warned {
				// The player is back: the warning goes now.
				if msg, isMsg := d.checkIdle(); isMsg {
					msgs = append(msgs, msg)
				}
			}
			return msgs
		case 2:
			msg := got.msg
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
			w := got.win
			d.win = w
			return []tea.Msg{tea.WindowSizeMsg{Width: w.Width, Height: w.Height}}
		case 5:
			d.idleTimer = nil
			if msg, isMsg := d.checkIdle(); isMsg {
				return []tea.Msg{msg}
			}
		case 6:
			d.heldTimer = nil
			d.runHeld(time.Now())
		case 7:
			d.endScreen()
		case 8:
			d.screenCall(d.screen.Beat)
		case 9:
			ev := got.screen
			d.screenCall(func() { d.screen.Handle(ev) })
		case 10:
			// A room screen handed over: the loop's top takes it.
		case 11:
			d.restTimer = nil
			d.scr.rest()
		default:
			k := (i - waitCases) / 2
			w := d.waits[k]
			d.waits = append(d.waits[:k], d.waits[k+1:]...)
			if (i-waitCases)%2 == 0 {
				if time.Now().Before(w.NotBefore) {
					d.hold(heldWait{w, ok})
					continue
				}
				d.then(w, ok)
			}
		}
	}
}

// waitCases is how many of next's select cases come before the waits'.
const waitCases = 12

// selectCases are next's channels besides the session's own and the waits'.
type selectCases struct {
	idleTick, held, rest <-chan time.Time
	left, beat           <-chan struct{}
	screenEvents         <-chan tui.ScreenEvent
}

// received is what next's select received, by case.
type received struct {
	events []termkey.Event
	msg    tea.Msg
	win    Window
	screen tui.ScreenEvent
}

// typedWaits is how many of the model's waits next selects on with a
// select statement; beyond that, reflect.Select, which costs several
// times as much a wake: while a game screen runs in the play loop, next
// wakes for every frame.
const typedWaits = 4

// selectTyped is next's select for up to typedWaits waits, its cases
// numbered as in next: the fixed ones, then each wait's Until and Stop.
func (d *driver) selectTyped(ctx context.Context, sc *selectCases, got *received) (i int, ok bool) {
	var until, stop [typedWaits]<-chan struct{} // nil: never ready
	for k, w := range d.waits {
		until[k], stop[k] = w.Until, w.Stop
	}
	select {
	case <-ctx.Done():
		return 0, false
	case got.events = <-d.events:
		return 1, true
	case got.msg = <-d.run.out:
		return 2, true
	case <-d.notes.wake:
		return 3, true
	case got.win = <-d.sess.Windows():
		return 4, true
	case <-sc.idleTick:
		return 5, true
	case <-sc.held:
		return 6, true
	case <-sc.left:
		return 7, true
	case <-sc.beat:
		return 8, true
	case got.screen = <-sc.screenEvents:
		return 9, true
	case <-d.term.handed:
		return 10, true
	case <-sc.rest:
		return 11, true
	case _, ok = <-until[0]:
		return waitCases, ok
	case <-stop[0]:
		return waitCases + 1, true
	case _, ok = <-until[1]:
		return waitCases + 2, ok
	case <-stop[1]:
		return waitCases + 3, true
	case _, ok = <-until[2]:
		return waitCases + 4, ok
	case <-stop[2]:
		return waitCases + 5, true
	case _, ok = <-until[3]:
		return waitCases + 6, ok
	case <-stop[3]:
		return waitCases + 7, true
	}
}

// selectReflect is next's select for any number of waits.
func (d *driver) selectReflect(ctx context.Context, sc *selectCases, got *received) (int, bool) {
	cases := append(d.cases[:0],
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.events)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.run.out)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.notes.wake)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.sess.Windows())},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(sc.idleTick)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(sc.held)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(sc.left)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(sc.beat)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(sc.screenEvents)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.term.handed)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(sc.rest)})
	for _, w := range d.waits {
		cases = append(cases,
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.Until)},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.Stop)})
	}
	d.cases = cases
	i, v, ok := reflect.Select(cases)
	switch i {
	case 1:
		got.events = v.Interface().([]termkey.Event)
	case 2:
		got.msg = v.Interface()
	case 4:
		got.win = v.Interface().(Window)
	case 9:
		got.screen = v.Interface().(tui.ScreenEvent)
	}
	return i, ok
}

// then runs what a wait stood for as a command: reading the new state may
// take a lock or the store.
func (d *driver) then(w tui.WaitMsg, ok bool) {
	d.run.start(func() tea.Msg { return w.Then(ok) })
}

// hold keeps a fired wait until its NotBefore, on the one timer.
func (d *driver) hold(h heldWait) {
	d.held = append(d.held, h)
	d.armHeld()
}

// runHeld runs the held waits that are due (and not stopped meanwhile)
// and sets the timer for the rest.
func (d *driver) runHeld(now time.Time) {
	kept := d.held[:0]
	for _, h := range d.held {
		switch {
		case stopped(h.w.Stop):
		case !now.Before(h.w.NotBefore):
			d.then(h.w, h.ok)
		default:
			kept = append(kept, h)
		}
	}
	clear(d.held[len(kept):])
	d.held = kept
	d.armHeld()
}

// armHeld sets the timer for the earliest held wait.
func (d *driver) armHeld() {
	if d.heldTimer != nil {
		d.heldTimer.Stop()
		d.heldTimer = nil
	}
	if len(d.held) == 0 {
		return
	}
	first := d.held[0].w.NotBefore
	for _, h := range d.held[1:] {
		if h.w.NotBefore.Before(first) {
			first = h.w.NotBefore
		}
	}
	d.heldTimer = time.NewTimer(time.Until(first))
}

// stopped reports whether a wait's Stop has fired.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// menus drives the model while it shows the menus, on the session's
// goroutine: it runs each message through Update and, once a batch of
// messages is done, draws the view if it changed. Nothing runs between
// messages: no frame ticker. It reports whether the session is to end;
// false: the model went to a game screen, which the play loop drives.
func (d *driver) menus() (quit bool) {
	// What a Bubble Tea program told its model as it started, each time
	// the menus take the terminal: its colour profile and size.
	pending := append([]tea.Msg{tea.ColorProfileMsg{Profile: d.scr.profile},
		tea.WindowSizeMsg{Width: d.win.Width, Height: d.win.Height}}, d.carry...)
	d.carry = nil
	for {
		for len(pending) > 0 {
			msg := pending[0]
			pending = pending[1:]
			switch m := msg.(type) {
			case tea.QuitMsg:
				d.draw() // the model's last view, as Bubble Tea ends
				return true
			case tea.SuspendMsg:
				// A client cannot suspend a server-side program (^Z would
				// stop it for good); carry on instead.
				msg = tea.ResumeMsg{}
			case tea.WindowSizeMsg:
				d.scr.resize(m.Width, m.Height)
			case tea.ColorProfileMsg:
				d.scr.setProfile(m.Profile)
			}
			if reflect.TypeOf(msg) == clearScreenType {
				d.scr.clear()
			}
			// A player's room screen takes the game's keys first.
			if msg = d.term.filter(d.ctx, msg); msg != nil {
				d.update(msg)
			}
			if d.gameScreen() {
				// The game screen draws from now on: the menus' view
				// is not drawn (it would flash under the board).
				d.stopRest()
				d.carry = pending
				return false
			}
		}
		d.draw()
		if pending = d.next(d.ctx); pending == nil {
			return true
		}
	}
}

// clearScreenType is Bubble Tea's (unexported) message for tea.ClearScreen.
var clearScreenType = reflect.TypeOf(tea.ClearScreen())

// draw shows the menus' view; a failed write ends nothing here (the
// connection's own watch ends a session whose client is gone). The rest
// timer starts again: the cells are let go once the view has stood still
// for restAfter.
func (d *driver) draw() {
	_ = d.scr.draw(d.gm.View())
	if d.restAfter <= 0 {
		return
	}
	if d.restTimer == nil {
		d.restTimer = time.NewTimer(d.restAfter)
	} else {
		d.restTimer.Reset(d.restAfter)
	}
}

// stopRest stops the rest timer: the game screen has the terminal, and
// the menus let their cells go as they hand it over (menuScreen.lent).
func (d *driver) stopRest() {
	if d.restTimer != nil {
		d.restTimer.Stop()
		d.restTimer = nil
	}
}

// play drives the model while it shows a game screen, on the session's
// goroutine. It reports whether the session is to end (the model quit or
// the session ended); false: the model is back in the menus.
func (d *driver) play() (quit bool) {
	d.takeTerminal()
	pending := d.carry
	d.carry = nil
	for {
		d.syncScreen()
		for len(pending) > 0 {
			if !d.gameScreen() {
				d.syncScreen()
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
				d.syncScreen()
			}
		}
		if !d.gameScreen() {
			d.giveTerminal()
			return false
		}
		if pending = d.next(d.ctx); pending == nil {
			return true
		}
	}
}

// syncScreen keeps the room screen the driver runs (in the play loop, or in
// the menus' loop under a model that shows no game screen) in step with
// the lobby: it ends the one whose room the player left (its ctx ended)
// and begins the one the lobby handed over since (terminal.Drive). A
// screen handed over and left before the driver got to it is ended
// unbegun, so that whoever waits for it to stop drawing is not left
// waiting.
func (d *driver) syncScreen() {
	if d.screen != nil && d.screenCtx.Err() != nil {
		d.endScreen()
	}
	for _, s := range d.term.takeScreens() {
		d.endScreen() // a newer screen replaces it
		if s.ctx.Err() != nil || d.ctx.Err() != nil {
			s.v.End()
			continue
		}
		d.screen, d.screenCtx = s.v, s.ctx
		d.screenCall(s.v.Begin)
	}
}

// endScreen ends the room screen the driver runs, if any.
func (d *driver) endScreen() {
	if v := d.screen; v != nil {
		d.screen, d.screenCtx = nil, nil
		v.End()
	}
}

// endScreens ends the room screen and any handed over but never begun, as
// the session ends.
func (d *driver) endScreens() {
	d.endScreen()
	for _, s := range d.term.takeScreens() {
		s.v.End()
	}
}

// screenCall runs a step of the room screen on the driver's goroutine: a
// panic in it ends the session (as it did on the screen's own goroutine),
// not the server, and the screen with it.
func (d *driver) screenCall(f func()) {
	defer func() {
		if r := recover(); r != nil {
			d.gm.g.recovered(r, "room view")
			d.endScreen()
		}
	}()
	f()
}

// The kitty keyboard protocol's flags the play screen asks for:
// disambiguated keys (1) and key releases (2), so a held paddle key stops
// when let go. The menus ask for none.
const (
	kittyPush = "\x1b[>3u"
	kittyPop  = "\x1b[<u"
	// restoreTerm is what the play loop writes when the session ends on a
	// game screen: what the menus write when they end (bracketed paste
	// off, cursor shown, the main screen back).
	restoreTerm = "\x1b[?2004l\x1b[?25h\x1b[?1049l"
)

// takeTerminal hands the terminal to the game screen: the alternate
// screen (a session that went to a game at once may not have drawn a menu
// yet), the kitty keyboard protocol, and the game's frames written from
// now on; the game screen is told to paint it whole.
func (d *driver) takeTerminal() {
	seq := kittyPush
	if !d.scr.alt {
		seq = "\x1b[?1049h\x1b[?25l\x1b[2J" + seq
	}
	d.scr.lent()
	d.out.handTo(true, seq)
	d.playing = true
}

// giveTerminal hands the terminal back to the menus: no game frame is
// written from now on, the keyboard mode is undone, and the menus repaint
// whole when they draw next (lent).
func (d *driver) giveTerminal() {
	d.out.handTo(false, kittyPop)
	d.playing = false
}

// restore gives the terminal back to the player as the session ends.
func (d *driver) restore() {
	if d.playing {
		d.out.handTo(false, kittyPop+restoreTerm)
		d.playing = false
		return
	}
	_ = d.scr.close()
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
