package chat

import (
	"fmt"
	"time"
	"unicode"
)

// FloodConfig tunes flood control. Zero fields take the defaults in
// brackets.
type FloodConfig struct {
	Burst           int           // messages that may go at once [5]
	Refill          time.Duration // one more message allowed per Refill [1s]
	DuplicateWindow time.Duration // the same text is refused for this long [30s]
	Violations      int           // this many refusals… [3]
	ViolationWindow time.Duration // …within this window mute automatically [60s]
	AutoMute        time.Duration // first automatic mute; each next one doubles [60s]
	AutoMuteMax     time.Duration // cap on the doubling [24h]
	// AutoMuteDecay: this long after the end of the last automatic mute,
	// doubling starts again from AutoMute [24h]. Counted from the end, not
	// the start: counted from the start, a capped 24h mute would reset the
	// escalation the moment it ran out.
	AutoMuteDecay time.Duration
}

func (f FloodConfig) withDefaults() FloodConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if f.Burst <= 0 {
		f.Burst = 5
	}
	if f.Violations <= 0 {
		f.Violations = 3
	}
	def(&f.Refill, time.Second)
	def(&f.DuplicateWindow, 30*time.Second)
	def(&f.ViolationWindow, 60*time.Second)
	def(&f.AutoMute, 60*time.Second)
	def(&f.AutoMuteMax, 24*time.Hour)
	def(&f.AutoMuteDecay, 24*time.Hour)
	return f
}

// memory is how long flood state matters after a member's last message.
func (f FloodConfig) memory() time.Duration {
	return max(f.DuplicateWindow, f.ViolationWindow, time.Duration(f.Burst)*f.Refill)
}

// floodReason is what an automatic mute says.
const floodReason = "flooding (automatic)"

// dupSlots is how many recent messages are remembered for the duplicate
// check: at the default rates at most 35 fit in 30 s, and a message that
// scrolled out of 48 slots is no longer flooding anyone.
const dupSlots = 48

type floodState struct {
	// tat is the token bucket as a "theoretical arrival time" (GCRA): the
	// bucket is full when tat <= now, and each message pushes it Refill on.
	// One timestamp instead of a float token count keeps it exact on a
	// simulated clock.
	tat        time.Time
	dups       [dupSlots]dupEntry
	dupNext    int
	violations []time.Time // within ViolationWindow, oldest first
	level      int         // automatic mutes so far (decays)
	autoUntil  time.Time   // end of the last automatic mute
}

type dupEntry struct {
	key uint64
	at  time.Time
}

// check admits a message with normalised key at now, or says why not.
func (f *floodState) check(cfg FloodConfig, key uint64, now time.Time) string {
	for _, d := range f.dups {
		if d.key == key && !d.at.IsZero() {
			if age := now.Sub(d.at); age < cfg.DuplicateWindow {
				wait := cfg.DuplicateWindow - max(age, 0)
				return fmt.Sprintf("not sent: you just said that (you can repeat it in %s)", FormatDuration(wait))
			}
		}
	}
	tat := f.tat
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(cfg.Refill)
	if over := next.Sub(now) - time.Duration(cfg.Burst)*cfg.Refill; over > 0 {
		return fmt.Sprintf("not sent: you are sending too fast (wait %s)", FormatDuration(over))
	}
	f.tat = next
	f.dups[f.dupNext] = dupEntry{key: key, at: now}
	f.dupNext = (f.dupNext + 1) % dupSlots
	return ""
}

// violation records a refused message and reports the automatic mute it
// triggers, if any.
func (f *floodState) violation(cfg FloodConfig, now time.Time) (time.Duration, bool) {
	keep := f.violations[:0]
	for _, t := range f.violations {
		if now.Sub(t) < cfg.ViolationWindow {
			keep = append(keep, t)
		}
	}
	f.violations = append(keep, now)
	if len(f.violations) < cfg.Violations {
		return 0, false
	}
	f.violations = f.violations[:0]
	if !f.escalated(cfg, now) {
		f.level = 0
	}
	d := cfg.AutoMute
	for i := 0; i < f.level && d < cfg.AutoMuteMax; i++ {
		d *= 2
	}
	d = min(d, cfg.AutoMuteMax)
	if d < cfg.AutoMuteMax {
		f.level++ // stops growing at the cap, so it cannot overflow
	}
	f.autoUntil = now.Add(d)
	return d, true
}

// escalated reports whether the next automatic mute still doubles the last.
func (f *floodState) escalated(cfg FloodConfig, now time.Time) bool {
	return !f.autoUntil.IsZero() && now.Sub(f.autoUntil) < cfg.AutoMuteDecay
}

// dupKey hashes what makes two messages "the same": kind and text,
// case-folded and with runs of white space collapsed. FNV-1a, written out so
// it costs no allocation.
func dupKey(kind Kind, text string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	mix := func(b byte) { h = (h ^ uint64(b)) * prime }
	mix(byte(kind))
	space := false
	started := false
	for _, r := range text {
		if unicode.IsSpace(r) {
			space = started
			continue
		}
		if space {
			mix(' ')
			space = false
		}
		started = true
		r = foldCase(r)
		mix(byte(r >> 16)) // fixed width, so rune boundaries cannot shift
		mix(byte(r >> 8))
		mix(byte(r))
	}
	return h
}

// foldCase maps r to one representative of its case-folding orbit (the
// smallest), so "K", "k" and the Kelvin sign compare equal.
func foldCase(r rune) rune {
	low := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		low = min(low, f)
	}
	return low
}
