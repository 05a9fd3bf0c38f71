package admin

import (
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/moderation"
	"net/netip"
	"strings"
	"time"

	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

const (
	defaultMute = 10 * time.Minute

	// Text limits in runes, applied after sanitising. A reason is read in
	// one table cell and one kick message; an announcement on one line.
	maxReasonRunes   = 200
	maxAnnounceRunes = 300

	// A range ban wider than these would lock out a large part of the
	// internet, most likely by a typo (/8 for /28); an operator who means
	// it has a firewall.
	minIPv4Bits = 16
	minIPv6Bits = 32

	whenLayout = "2006-01-02 15:04 MST"
)

// target is the player a moderation command acts on.
type target struct {
	fp   string
	name string // "" for a key that no player record holds
}

// label is how output and the audit log name the target.
func (t target) label() string {
	if t.name != "" {
		return t.name
	}
	return t.fp
}

// resolve finds the player arg names: a fingerprint (it holds a colon,
// which no name may) or a name. With anyKey, a well-formed fingerprint
// nobody has logged in with yet is accepted too: an admin may ban a key
// before it ever connects.
func (r *runner) resolve(arg string, anyKey bool) (target, int) {
	t, found, err := r.lookup(arg)
	switch {
	case err != nil:
		return target{}, r.storeFail("read the player", err)
	case found:
		return t, ExitOK
	case strings.Contains(arg, ":") && anyKey && validFingerprint(arg):
		return target{fp: arg}, ExitOK
	case strings.Contains(arg, ":"):
		return target{}, r.fail("no player with key %q", sanitize.Arg(arg))
	}
	return target{}, r.fail("no player named %q", sanitize.Arg(arg))
}

// resolveLive is resolve for commands that act on live sessions (kick,
// warn): a name or fingerprint of a stored player, or else of anyone
// online, which is how a guest (guest-1a2b) is reached.
func (r *runner) resolveLive(arg string) (target, int) {
	t, found, err := r.lookup(arg)
	if err != nil {
		return target{}, r.storeFail("read the player", err)
	}
	if found {
		return t, ExitOK
	}
	for _, si := range r.d.Sessions.List() {
		if strings.EqualFold(si.Name, arg) || si.Fingerprint == arg {
			return target{fp: si.Fingerprint, name: sanitize.Text(si.Name, 32)}, ExitOK
		}
	}
	return target{}, r.fail("no player or online guest named %q", sanitize.Arg(arg))
}

// lookup finds a stored player; an unknown or impossible name is simply
// not found.
func (r *runner) lookup(arg string) (target, bool, error) {
	var p store.Player
	var err error
	if strings.Contains(arg, ":") {
		p, err = r.d.Store.PlayerByFingerprint(r.ctx, arg)
	} else {
		p, err = r.d.Store.PlayerByName(r.ctx, arg)
	}
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidName):
		return target{}, false, nil
	case err != nil:
		return target{}, false, err
	}
	return target{fp: p.Fingerprint, name: p.Name}, true, nil
}

// validFingerprint accepts exactly what ssh.FingerprintSHA256 produces.
func validFingerprint(s string) bool {
	b64, ok := strings.CutPrefix(s, "SHA256:")
	if !ok {
		return false
	}
	sum, err := base64.RawStdEncoding.DecodeString(b64)
	return err == nil && len(sum) == 32
}

// reasonText joins the words of a reason and makes it inert on a terminal.
func reasonText(words []string, maxRunes int) string {
	return strings.TrimSpace(sanitize.Text(strings.Join(words, " "), maxRunes))
}

// BanMessage is what a banned player is shown: when they are kicked by
// `admin ban`, and (the server should use it too) when a login is refused.
func BanMessage(b store.Ban) string {
	msg := "you are banned permanently"
	if !b.Expires.IsZero() {
		msg = "you are banned until " + b.Expires.UTC().Format(whenLayout)
	}
	if reason := sanitize.Text(b.Reason, maxReasonRunes); reason != "" {
		msg += ": " + reason
	}
	return msg
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func runBan(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, []string{"ip"})
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) == 0 {
		return r.usageErr("name the player to ban")
	}
	rest := p.Pos[1:]
	var dur time.Duration // 0: permanent
	if len(rest) > 0 && (rest[0] == permanent || moderation.LooksLikeDuration(rest[0])) {
		if rest[0] != permanent {
			if dur, err = moderation.ParseDuration(rest[0]); err != nil {
				return r.usageErr("%v", err)
			}
		}
		rest = rest[1:]
	}
	reason := reasonText(rest, maxReasonRunes)
	var prefix netip.Prefix
	if v, ok := p.Vals["ip"]; ok {
		if prefix, err = store.ParseCIDR(v); err != nil {
			return r.usageErr("--ip %q: want an address or a range such as 203.0.113.0/24", sanitize.Arg(v))
		}
		minBits := minIPv6Bits
		if prefix.Addr().Is4() {
			minBits = minIPv4Bits
		}
		if prefix.Bits() < minBits {
			return r.usageErr("--ip %s is too wide; the widest range allowed is /%d", prefix, minBits)
		}
	}

	t, code := r.resolve(p.Pos[0], true)
	if code != ExitOK {
		return code
	}
	b, kicked, err := r.mod().Ban(r.ctx, r.actorParty(), t.party(), dur, reason, prefix)
	if err != nil {
		return r.refused(err, t)
	}
	if dur > 0 {
		fmt.Fprintf(r.out, "banned %s for %s, until %s\n", t.label(), moderation.FormatDuration(dur), b.Expires.UTC().Format(whenLayout))
	} else {
		fmt.Fprintf(r.out, "banned %s permanently\n", t.label())
	}
	if b.CIDR != "" {
		fmt.Fprintf(r.out, "also refusing every connection from %s\n", b.CIDR)
	}
	if reason != "" {
		fmt.Fprintf(r.out, "reason: %s\n", reason)
	}
	fmt.Fprintf(r.out, "kicked %s\n", plural(kicked, "session", "sessions"))
	return ExitOK
}

// sessionAddr reads "host:port" or a bare address.
func sessionAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}

func runUnban(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) == 0 {
		return r.usageErr("name the player to unban")
	}
	t, code := r.resolve(p.Pos[0], true)
	if code != ExitOK {
		return code
	}
	n, err := r.d.Store.RemoveBan(r.ctx, t.fp, store.By{Actor: r.actor(), Reason: reasonText(p.Pos[1:], maxReasonRunes)})
	if err != nil {
		return r.storeFail("lift the ban", err)
	}
	if n == 0 {
		// Nothing was lifted: most likely the wrong player was named,
		// which a script must be able to tell from a lifted ban.
		return r.fail("%s has no active ban: nothing to lift", t.label())
	}
	fmt.Fprintf(r.out, "lifted %s of %s\n", plural(n, "ban", "bans"), t.label())
	return ExitOK
}

func runMute(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) == 0 {
		return r.usageErr("name the player to mute")
	}
	rest := p.Pos[1:]
	dur := defaultMute
	if len(rest) > 0 && rest[0] == permanent {
		// Live chat takes a mute's end time, and no end means "lift".
		return r.usageErr("mutes cannot be permanent; give a DUR (at most %dd), or ban", maxDuration/(24*time.Hour))
	}
	if len(rest) > 0 && moderation.LooksLikeDuration(rest[0]) {
		if dur, err = moderation.ParseDuration(rest[0]); err != nil {
			return r.usageErr("%v", err)
		}
		rest = rest[1:]
	}
	reason := reasonText(rest, maxReasonRunes)
	t, code := r.resolve(p.Pos[0], false)
	if code != ExitOK {
		return code
	}
	m, err := r.mod().Mute(r.ctx, r.actorParty(), t.party(), dur, reason, false)
	if err != nil {
		return r.refused(err, t)
	}
	fmt.Fprintf(r.out, "muted %s for %s, until %s\n", t.label(), moderation.FormatDuration(dur), m.Expires.UTC().Format(whenLayout))
	if reason != "" {
		fmt.Fprintf(r.out, "reason: %s\n", reason)
	}
	return ExitOK
}

func runUnmute(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) == 0 {
		return r.usageErr("name the player to unmute")
	}
	t, code := r.resolve(p.Pos[0], true)
	if code != ExitOK {
		return code
	}
	lifted, err := r.mod().Unmute(r.ctx, r.actorParty(), t.party(), reasonText(p.Pos[1:], maxReasonRunes))
	if err != nil {
		return r.refused(err, t)
	}
	if !lifted {
		return r.fail("%s is not muted: nothing to lift", t.label())
	}
	fmt.Fprintf(r.out, "unmuted %s\n", t.label())
	return ExitOK
}

func runKick(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) == 0 {
		return r.usageErr("name the player to kick")
	}
	reason := reasonText(p.Pos[1:], maxReasonRunes)
	t, code := r.resolveLive(p.Pos[0])
	if code != ExitOK {
		return code
	}
	n, err := r.mod().Kick(r.ctx, r.actorParty(), t.party(), reason)
	if err != nil {
		return r.refused(err, t)
	}
	fmt.Fprintf(r.out, "kicked %s (%s)\n", t.label(), plural(n, "session", "sessions"))
	return ExitOK
}

func runWarn(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) == 0 {
		return r.usageErr("name the player to warn")
	}
	text := reasonText(p.Pos[1:], maxReasonRunes)
	if text == "" {
		return r.usageErr("say what the warning is")
	}
	t, code := r.resolveLive(p.Pos[0])
	if code != ExitOK {
		return code
	}
	n, err := r.mod().Warn(r.ctx, r.actorParty(), t.party(), text)
	if errors.Is(err, ErrNotOnline) {
		return r.fail("%s is not online; nothing was sent", t.label())
	}
	if err != nil {
		return r.refused(err, t)
	}
	fmt.Fprintf(r.out, "warned %s (%s)\n", t.label(), plural(n, "session", "sessions"))
	return ExitOK
}

func runAnnounce(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	text := reasonText(p.Pos, maxAnnounceRunes)
	if text == "" {
		return r.usageErr("say what to announce")
	}
	n := r.d.Sessions.Announce(text)
	if code := r.audit(store.ActionAnnounce, target{}, text); code != ExitOK {
		return code
	}
	fmt.Fprintf(r.out, "announced to %s\n", plural(n, "session", "sessions"))
	return ExitOK
}

func runPromote(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) != 2 {
		return r.usageErr("want a player and a role")
	}
	if !strings.EqualFold(p.Pos[1], store.RoleModerator) {
		return r.usageErr("unknown role %q; the only role is %s", sanitize.Arg(p.Pos[1]), store.RoleModerator)
	}
	return r.setRole(p.Pos[0], store.RoleModerator)
}

func runDemote(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, nil, nil)
	if err != nil {
		return r.usageErr("%v", err)
	}
	if len(p.Pos) != 1 {
		return r.usageErr("want exactly one player")
	}
	return r.setRole(p.Pos[0], "")
}

func (r *runner) setRole(who, role string) int {
	t, code := r.resolve(who, false)
	if code != ExitOK {
		return code
	}
	before, err := r.d.Store.PlayerByFingerprint(r.ctx, t.fp)
	if err != nil {
		return r.storeFail("read the player", err)
	}
	if _, err := r.d.Store.SetRole(r.ctx, t.fp, role, store.By{Actor: r.actor()}); err != nil {
		return r.storeFail("change the role", err)
	}
	r.d.Sessions.RoleChanged(t.fp, role)
	switch {
	case before.Role == role && role == "":
		fmt.Fprintf(r.out, "%s is not a moderator\n", t.label())
	case before.Role == role:
		fmt.Fprintf(r.out, "%s is already a moderator\n", t.label())
	case role == "":
		fmt.Fprintf(r.out, "%s is no longer a moderator\n", t.label())
	default:
		fmt.Fprintf(r.out, "%s is now a moderator\n", t.label())
	}
	return ExitOK
}

// audit records an action that changes no stored state (an announcement).
// It runs after the action, so a failure here is reported: the action
// happened but its log line is missing, which an operator must know.
func (r *runner) audit(action string, t target, reason string) int {
	err := r.d.Store.Audit(r.ctx, store.AuditEntry{Actor: r.actor(), Action: action, Target: t.label(), TargetID: t.fp, Reason: reason})
	if err != nil {
		return r.fail("%s done, but the audit log was not written: %s", action, sanitize.Text(err.Error(), 300))
	}
	return ExitOK
}

// party is the target as the moderation service takes it.
func (t target) party() moderation.Party { return moderation.Party{ID: t.fp, Name: t.name} }

// actorParty is the caller as the moderation service takes them: Run has
// already refused anyone without an admin key.
func (r *runner) actorParty() moderation.Party {
	return moderation.Party{ID: r.caller.ID, Name: r.actor(), Rank: moderation.Admin}
}

// mod is the moderation service the admin commands carry actions out with,
// the same one chat's /mute and /ban use.
func (r *runner) mod() Moderation {
	return Moderation{Store: r.d.Store, Sessions: r.d.Sessions, Now: r.d.Now, IsAdmin: r.d.IsAdmin}
}

// refused reports why the moderation service did not act on t.
func (r *runner) refused(err error, t target) int {
	var rank *moderation.RankError
	var st *StoreError
	switch {
	case errors.Is(err, moderation.ErrSelf):
		return r.fail("refusing to %s your own key", r.cmd.name)
	case errors.As(err, &rank):
		fmt.Fprintf(r.errOut, "termarena: admin %s: not allowed: %s is %s\n", r.cmd.name, t.label(), rank.Target.Rank.Article())
		return ExitDenied
	case errors.Is(err, ErrNotOnline):
		return r.fail("%s is not online", t.label())
	case errors.As(err, &st):
		return r.storeFail(st.What, st.Err)
	}
	return r.fail("%s", sanitize.Text(err.Error(), 300))
}
