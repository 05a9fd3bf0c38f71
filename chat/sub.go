package chat

import "sync"

// Sub is one session's subscription. Messages wait in a bounded ring: when a
// session falls more than the ring behind, its oldest messages are dropped
// (and counted in Missed) instead of anyone waiting for it.
type Sub struct {
	c *Chat
	m *member

	// Guarded by c.mu.
	channels  []ChannelKey
	lobbySeen uint64 // newest lobby message pushed, so re-entering the lobby repeats nothing

	mu     sync.Mutex
	buf    []*Message // shared, immutable messages: a ring costs 8 bytes a slot
	start  int
	n      int
	missed uint64
	closed bool
	notify chan struct{}
}

// push appends msg, overwriting the oldest when full, and wakes the reader.
// It never blocks. The caller holds c.mu.
func (s *Sub) push(msg *Message) {
	if msg.Channel == LobbyChannel && msg.ID > s.lobbySeen {
		s.lobbySeen = msg.ID
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.n == len(s.buf) {
		s.buf[s.start] = msg
		s.start = (s.start + 1) % len(s.buf)
		s.missed++
	} else {
		s.buf[(s.start+s.n)%len(s.buf)] = msg
		s.n++
	}
	// Under s.mu, so Close cannot close notify in between.
	select {
	case s.notify <- struct{}{}:
	default: // a wake-up is already pending: it covers this message too
	}
	s.mu.Unlock()
}

// Messages returns a channel that receives a value whenever messages have
// arrived since the last one, and is closed by Close. Wake-ups coalesce:
// after one, Drain everything.
func (s *Sub) Messages() <-chan struct{} { return s.notify }

// Drain returns the waiting messages, oldest first, and empties the ring.
func (s *Sub) Drain() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return nil
	}
	out := make([]Message, s.n)
	for i := range out {
		k := (s.start + i) % len(s.buf)
		out[i] = *s.buf[k]
		s.buf[k] = nil
	}
	s.start, s.n = 0, 0
	return out
}

// Missed is how many messages were dropped, over the life of the
// subscription, because the ring was full. A view compares it with the value
// it last saw to say "n messages skipped".
func (s *Sub) Missed() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.missed
}

// SetChannels moves the subscription to exactly channels, as when a player
// goes from the lobby to a room. Coming back to the lobby delivers the lobby
// history posted meanwhile.
func (s *Sub) SetChannels(channels ...ChannelKey) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.isClosed() {
		return
	}
	s.c.setChannelsLocked(s, channels)
}

// Channels returns the channels the subscription is on.
func (s *Sub) Channels() []ChannelKey {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return append([]ChannelKey(nil), s.channels...)
}

// Member returns whom the subscription belongs to.
func (s *Sub) Member() Member {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.m.Member
}

// Close unsubscribes and closes Messages. Messages still waiting can be
// drained. Close may be called more than once.
func (s *Sub) Close() {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.notify)
	s.mu.Unlock()
	s.c.closeLocked(s)
}

func (s *Sub) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
