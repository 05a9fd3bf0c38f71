package chat

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/termarena/termarena/sanitize"
)

// ErrFilterEntry is matched by the errors NewFilter and LoadFilter return for
// an entry they cannot use.
var ErrFilterEntry = errors.New("invalid filter entry")

// DefaultWords is the built-in word list: mild, common English profanity
// only. Operators extend it with LoadFilter (slurs and local words belong in
// their file, where they can judge their community's needs).
//
// An entry is a whole word ("dick", which also matches the plurals "dicks"
// and "dickes"), or a word with "*" marking where it may be part of a longer
// word: "bitch*" starts a word (bitchy), "*fuck*" may appear anywhere in one
// (motherfucker). Whole words are the default because most short swear words
// are also the inside of ordinary ones (cocktail, passage, Dickens).
func DefaultWords() []string {
	return []string{
		"*fuck*", "*shit*", "bitch*", "bastard*", "asshole*", "arsehole*",
		"dickhead*", "dick", "cock", "piss*", "wank*", "twat", "bollock*",
		"ass", "jackass", "dumbass",
	}
}

// DefaultAllow lists words that are never masked, whatever the word list says:
// the well-known victims of substring filters. Most are safe from the default
// list anyway; they are here so an operator who adds "*cunt*" or "*rapist*"
// does not start masking towns and professions.
func DefaultAllow() []string {
	return []string{
		"scunthorpe", "penistone", "essex", "sussex", "middlesex",
		"assassin", "assassins", "assassinate", "assassination",
		"therapist", "therapists", "cockpit", "cockpits", "cocktail",
		"cocktails", "cockatoo", "cockroach", "peacock", "hancock",
		"hitchcock", "class", "classic", "classes", "grass", "glass", "pass",
		"bass", "mass", "passage", "dickens", "shitake", "shiitake",
		"mishit", "mishits", "pissarro",
	}
}

// Filter masks listed words in chat text. The zero value and NewFilter(nil,
// nil) mask nothing. A Filter is safe for concurrent use; its word lists
// never change after NewFilter. Use it by pointer (it holds a sync.Pool).
//
// Matching is done on a normalised form of each word: case-folded, accents
// and common look-alike letters (Cyrillic а, е, о…) folded to ASCII, digit
// and symbol substitutions undone (0→o, 1→i or l, 3→e, 4→a, 5→s, 7→t, @→a,
// $→s, ! between letters → i), and letters may be repeated ("fuuuck"). Letters
// spelled out one by one with separators ("f.u.c.k", "f u c k") are joined
// when they spell a listed word; longer words are never joined, so "push it"
// does not become "pushit".
type Filter struct {
	// whole and prefix entries by their first letter, suffix entries by
	// their last, so a word is compared with the few entries it could be.
	whole, prefix, suffix [26][]pattern
	infix                 []pattern
	entries               int
	allow                 map[string]struct{} // collapsed forms
	all                   [26][]listed        // every entry by first letter, for spelled-out words
	scanners              sync.Pool           // *scanner
}

// pattern is a word as runs of letters: a run of n letters c matches a run of
// at least n c's in the text. Keeping the count (rather than collapsing both
// sides to single letters) keeps "piss*" from matching "pistol".
type pattern struct {
	runs []run
	need uint32 // a bit per letter it contains: most words are ruled out by this alone
}

type run struct {
	c byte // 'a'–'z', or ambiguous (the digit 1) in text, or 0 for "never matches"
	n int32
}

// ambiguous stands for a "1" in the text, which people write for i and l.
const ambiguous = '1'

// NewFilter builds a filter from words (see DefaultWords for the syntax) and
// allow, a list of whole words never to mask. It does not add the defaults.
func NewFilter(words, allow []string) (*Filter, error) {
	f := &Filter{allow: map[string]struct{}{}}
	for _, w := range words {
		if err := f.addWord(w); err != nil {
			return nil, err
		}
	}
	for _, a := range allow {
		if err := f.addAllow(a); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// DefaultFilter is NewFilter(DefaultWords(), DefaultAllow()).
func DefaultFilter() *Filter {
	f, err := NewFilter(DefaultWords(), DefaultAllow())
	if err != nil {
		// The lists are constants of this package; a test covers them.
		panic("chat: default filter: " + err.Error())
	}
	return f
}

// maxFilterEntries bounds what an operator file can make every message cost.
const maxFilterEntries = 10000

// LoadFilter reads an operator's word file and returns the default filter
// extended with it. One entry per line; "#" starts a comment; "!word" adds
// word to the allow-list (which also lets an operator switch off a default
// word: "!ass"). Entries use DefaultWords' syntax.
func LoadFilter(path string) (*Filter, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("chat: load filter: %w", err)
	}
	defer file.Close()
	words, allow := DefaultWords(), DefaultAllow()
	sc := bufio.NewScanner(file)
	line, entries := 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if entries++; entries > maxFilterEntries {
			return nil, fmt.Errorf("chat: load filter %s:%d: more than %d entries: %w", path, line, maxFilterEntries, ErrFilterEntry)
		}
		if a, ok := strings.CutPrefix(text, "!"); ok {
			allow = append(allow, a)
		} else {
			words = append(words, text)
		}
		// Validate here too, so the error can name the line.
		probe := &Filter{allow: map[string]struct{}{}}
		var perr error
		if a, ok := strings.CutPrefix(text, "!"); ok {
			perr = probe.addAllow(a)
		} else {
			perr = probe.addWord(text)
		}
		if perr != nil {
			return nil, fmt.Errorf("chat: load filter %s:%d: %w", path, line, perr)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("chat: load filter %s: %w", path, err)
	}
	f, err := NewFilter(words, allow)
	if err != nil {
		return nil, fmt.Errorf("chat: load filter %s: %w", path, err)
	}
	return f, nil
}

const maxEntryLetters = 32

func entryError(entry, why string) error {
	return fmt.Errorf("%q: %s: %w", sanitize.Arg(entry), why, ErrFilterEntry)
}

func (f *Filter) addWord(entry string) error {
	w := strings.ToLower(strings.TrimSpace(entry))
	pre := strings.HasPrefix(w, "*")
	suf := strings.HasSuffix(w, "*") && len(w) > 1
	core := strings.Trim(w, "*")
	if err := checkLetters(entry, core); err != nil {
		return err
	}
	p := encode(core)
	first, last := core[0]-'a', core[len(core)-1]-'a'
	switch {
	case pre && suf:
		f.infix = append(f.infix, p)
	case pre:
		f.suffix[last] = append(f.suffix[last], p)
	case suf:
		f.prefix[first] = append(f.prefix[first], p)
	default:
		f.whole[first] = append(f.whole[first], p, encode(core+"s"), encode(core+"es"))
	}
	f.entries++
	f.all[first] = append(f.all[first], listed{pattern: p, open: suf})
	return nil
}

func (f *Filter) addAllow(entry string) error {
	w := strings.ToLower(strings.TrimSpace(entry))
	if err := checkLetters(entry, w); err != nil {
		return err
	}
	f.allow[collapse(w)] = struct{}{}
	return nil
}

func checkLetters(entry, core string) error {
	if len(core) < 2 || len(core) > maxEntryLetters {
		return entryError(entry, fmt.Sprintf("must be 2 to %d letters", maxEntryLetters))
	}
	for i := 0; i < len(core); i++ {
		if core[i] < 'a' || core[i] > 'z' {
			return entryError(entry, "only letters a-z, optionally starting or ending with *")
		}
	}
	return nil
}

func encode(w string) pattern {
	var p pattern
	for i := 0; i < len(w); i++ {
		p.need |= letterBit(w[i])
		if n := len(p.runs); n > 0 && p.runs[n-1].c == w[i] {
			p.runs[n-1].n++
			continue
		}
		p.runs = append(p.runs, run{c: w[i], n: 1})
	}
	return p
}

// listed is a pattern and whether the word it starts may go on (prefix and
// infix entries).
type listed struct {
	pattern
	open bool
}

func letterBit(c byte) uint32 {
	if c >= 'a' && c <= 'z' {
		return 1 << (c - 'a')
	}
	return 0
}

func collapse(w string) string {
	var b []byte
	for i := 0; i < len(w); i++ {
		if len(b) == 0 || b[len(b)-1] != w[i] {
			b = append(b, w[i])
		}
	}
	return string(b)
}

// Mask returns s with every filtered word replaced by as many "*" as it has
// runes. When nothing matches it returns s itself without allocating.
func (f *Filter) Mask(s string) string {
	if f == nil || f.entries == 0 {
		return s
	}
	sc, _ := f.scanners.Get().(*scanner)
	if sc == nil {
		sc = &scanner{}
	}
	defer func() {
		if cap(sc.letters) <= maxPooledLetters {
			sc.s = ""
			f.scanners.Put(sc)
		}
	}()
	sc.init(f, s)
	sc.scan()
	if len(sc.spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range sc.spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(strings.Repeat("*", utf8.RuneCountInString(s[sp.start:sp.end])))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

type span struct{ start, end int }

// token is a word of the text: bytes [start,end) of it, letters [lo,hi) of
// the scanner's letter buffer.
type token struct {
	start, end int
	lo, hi     int
	real       bool // has a letter that was not a substitution: "455" is a number
}

// scanner walks the text once, left to right, so the spans it records come
// out in order. Scanners are pooled per Filter, buffers and all, so masking a
// message costs no allocation once the pool is warm.
type scanner struct {
	f       *Filter
	s       string
	letters []byte
	run     []token // consecutive one-letter tokens
	spans   []span
	runs    []run
	join    []byte
	alt     []byte
	masked  []bool
	starts  []int
}

// maxPooledLetters keeps one huge input from pinning a huge scanner.
const maxPooledLetters = 4096

func (sc *scanner) init(f *Filter, s string) {
	sc.f, sc.s = f, s
	sc.letters = sc.letters[:0]
	sc.run = sc.run[:0]
	sc.spans = sc.spans[:0]
}

type class uint8

const (
	sep    class = iota
	letter       // a letter, folded into c (0 if it folds to nothing we match)
	subst        // a digit or symbol standing in for a letter
	mark         // combining mark: part of the word, no letter of its own
	inner        // ' or !: part of the word only between two word characters
)

func classify(r rune) (class, byte) {
	switch {
	case r >= 'a' && r <= 'z':
		return letter, byte(r)
	case r >= 'A' && r <= 'Z':
		return letter, byte(r) + 'a' - 'A'
	case r >= '0' && r <= '9':
		switch r {
		case '0':
			return subst, 'o'
		case '1':
			return subst, ambiguous
		case '3':
			return subst, 'e'
		case '4':
			return subst, 'a'
		case '5':
			return subst, 's'
		case '7':
			return subst, 't'
		}
		return subst, 0
	case r == '@':
		return subst, 'a'
	case r == '$':
		return subst, 's'
	case r == '!':
		return inner, 'i'
	case r == '\'' || r == '\u2019':
		return inner, 0
	case r < utf8.RuneSelf:
		return sep, 0
	case unicode.In(r, unicode.Mn, unicode.Me):
		return mark, 0
	case unicode.IsLetter(r):
		return letter, foldLetter(r)
	}
	return sep, 0
}

// foldLetter maps accented Latin letters and the usual look-alikes from
// other scripts and fullwidth forms to ASCII, so "fück" and "fuсk" (with a
// Cyrillic с) are caught; anything else becomes 0, which matches nothing.
func foldLetter(r rune) byte {
	r = unicode.ToLower(r)
	switch {
	case r >= '\uff41' && r <= '\uff5a': // fullwidth a–z
		return byte(r-'\uff41') + 'a'
	case r >= '\uff21' && r <= '\uff3a':
		return byte(r-'\uff21') + 'a'
	}
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā', 'ă', 'ą', 'а', 'α':
		return 'a'
	case 'ç', 'ć', 'č', 'с':
		return 'c'
	case 'ď':
		return 'd'
	case 'è', 'é', 'ê', 'ë', 'ē', 'ė', 'ę', 'ě', 'е', 'ё':
		return 'e'
	case 'ì', 'í', 'î', 'ï', 'ī', 'į', 'ı', 'і', 'ι':
		return 'i'
	case 'к', 'κ':
		return 'k'
	case 'ł':
		return 'l'
	case 'ñ', 'ń', 'ň':
		return 'n'
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō', 'ő', 'о', 'ο':
		return 'o'
	case 'р':
		return 'p'
	case 'ś', 'š', 'ş', 'ѕ':
		return 's'
	case 'ť', 'ţ', 'т', 'τ':
		return 't'
	case 'ù', 'ú', 'û', 'ü', 'ū', 'ů', 'ű', 'ų':
		return 'u'
	case 'х':
		return 'x'
	case 'ý', 'ÿ', 'у':
		return 'y'
	case 'ź', 'ż', 'ž':
		return 'z'
	}
	return 0
}

// maxGap is how many separator runes may sit between spelled-out letters.
const maxGap = 3

func (sc *scanner) scan() {
	s := sc.s
	var cur token
	in := false
	flush := func(end int) {
		if !in {
			return
		}
		in = false
		cur.end = end
		cur.hi = len(sc.letters)
		sc.token(cur)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		cl, c := classify(r)
		switch cl {
		case letter, subst:
			if !in {
				in = true
				cur = token{start: i, lo: len(sc.letters)}
			}
			sc.letters = append(sc.letters, c)
			if cl == letter {
				cur.real = true
			}
		case mark:
			if !in {
				flush(i)
			}
		case inner:
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			ncl, _ := classify(next)
			if in && (ncl == letter || ncl == subst) {
				if c != 0 {
					sc.letters = append(sc.letters, c)
				}
			} else {
				flush(i)
			}
		default:
			flush(i)
		}
		i += size
	}
	flush(len(s))
	sc.flushRun()
}

// token takes each word as the scan finishes it.
func (sc *scanner) token(t token) {
	if t.hi-t.lo == 1 {
		if n := len(sc.run); n > 0 {
			gap := sc.s[sc.run[n-1].end:t.start]
			if utf8.RuneCountInString(gap) > maxGap {
				sc.flushRun()
			}
		}
		sc.run = append(sc.run, t)
		return
	}
	sc.flushRun()
	if t.real && sc.matchWord(sc.letters[t.lo:t.hi], true) {
		sc.spans = append(sc.spans, span{t.start, t.end})
	}
}

// flushRun looks for listed words spelled out in the pending run of
// one-letter tokens. The run is searched as one string, every entry as if it
// were "*word*": a spelled-out word has no edges to respect ("u r a d i c k").
// Entries that may continue (prefix and infix) mask to the end of the run,
// so "f u c k i n g" goes entirely. The search is linear in the run, so a
// message of 140 spelled-out letters costs about what a normal one does.
func (sc *scanner) flushRun() {
	run := sc.run
	sc.run = sc.run[:0]
	const minJoin = 3
	if len(run) < minJoin || !anyReal(run) {
		return
	}
	joined := sc.join[:0]
	amb := false
	for _, t := range run {
		c := sc.letters[t.lo]
		amb = amb || c == ambiguous
		joined = append(joined, c)
	}
	sc.join = joined
	masked := sc.masked[:0]
	for range run {
		masked = append(masked, false)
	}
	sc.masked = masked
	if !amb {
		sc.searchRun(joined, masked)
	} else {
		w := append(sc.alt[:0], joined...)
		sc.alt = w
		for _, alt := range [...]byte{'i', 'l'} {
			for k, c := range joined {
				if c == ambiguous {
					c = alt
				}
				w[k] = c
			}
			sc.searchRun(w, masked)
		}
	}
	for i := 0; i < len(run); {
		if !masked[i] {
			i++
			continue
		}
		j := i
		for j < len(run) && masked[j] {
			j++
		}
		if j-i >= minJoin && anyReal(run[i:j]) {
			sc.spans = append(sc.spans, span{run[i].start, run[j-1].end})
		}
		i = j
	}
}

// searchRun marks in masked the letters of w that spell listed words.
func (sc *scanner) searchRun(w []byte, masked []bool) {
	word := sc.encodeRuns(w)
	starts := sc.starts[:0] // letter index where each run begins
	at := 0
	for _, r := range word.runs {
		starts = append(starts, at)
		at += int(r.n)
	}
	starts = append(starts, at)
	sc.starts = starts
	runs := word.runs
	for pos := 0; pos < len(runs); {
		end, toEnd := -1, false
		if first := runs[pos].c - 'a'; first < 26 {
			for _, e := range sc.f.all[first] {
				if e.need&^word.need == 0 && pos+len(e.runs) <= len(runs) && runsMatch(runs[pos:pos+len(e.runs)], e.runs) {
					end, toEnd = pos+len(e.runs), e.open
					break
				}
			}
		}
		if end < 0 {
			pos++
			continue
		}
		if toEnd {
			end = len(runs)
		}
		for k := starts[pos]; k < starts[end]; k++ {
			masked[k] = true
		}
		pos = end
	}
}

func anyReal(ts []token) bool {
	for _, t := range ts {
		if t.real {
			return true
		}
	}
	return false
}

// matchWord reports whether letters (one word, normalised) must be masked.
// A "1" is tried as i and as l; the word is spared when either reading is on
// the allow-list.
func (sc *scanner) matchWord(letters []byte, checkAllow bool) bool {
	hasAmb := false
	for _, c := range letters {
		if c == ambiguous {
			hasAmb = true
			break
		}
	}
	// The allow-list is consulted only for words that would be masked:
	// most words match nothing and skip the map lookup.
	if !hasAmb {
		return sc.f.matches(sc.encodeRuns(letters)) && !(checkAllow && sc.allowed(letters))
	}
	w := append(sc.alt[:0], letters...)
	sc.alt = w
	hit := false
	for _, alt := range [...]byte{'i', 'l'} {
		for k, c := range letters {
			if c == ambiguous {
				c = alt
			}
			w[k] = c
		}
		if sc.f.matches(sc.encodeRuns(w)) {
			hit = true
		}
		if checkAllow && sc.allowed(w) {
			return false
		}
	}
	return hit
}

func (sc *scanner) allowed(letters []byte) bool {
	if len(sc.f.allow) == 0 {
		return false
	}
	var buf [maxEntryLetters]byte
	n := 0
	for _, c := range letters {
		if n > 0 && buf[n-1] == c {
			continue
		}
		if n == len(buf) {
			return false // longer than any allow-list entry
		}
		buf[n] = c
		n++
	}
	_, ok := sc.f.allow[string(buf[:n])]
	return ok
}

func (sc *scanner) encodeRuns(letters []byte) pattern {
	p := pattern{runs: sc.runs[:0]}
	for _, c := range letters {
		p.need |= letterBit(c)
		if n := len(p.runs); n > 0 && p.runs[n-1].c == c {
			p.runs[n-1].n++
			continue
		}
		p.runs = append(p.runs, run{c: c, n: 1})
	}
	sc.runs = p.runs
	return p
}

// matches reports whether word w (its need being the letters it has) is
// listed.
func (f *Filter) matches(w pattern) bool {
	has := w.need
	if first := w.runs[0].c - 'a'; first < 26 {
		for _, p := range f.whole[first] {
			if len(w.runs) == len(p.runs) && p.need&^has == 0 && runsMatch(w.runs, p.runs) {
				return true
			}
		}
		for _, p := range f.prefix[first] {
			if len(w.runs) >= len(p.runs) && p.need&^has == 0 && runsMatch(w.runs[:len(p.runs)], p.runs) {
				return true
			}
		}
	}
	if last := w.runs[len(w.runs)-1].c - 'a'; last < 26 {
		for _, p := range f.suffix[last] {
			if len(w.runs) >= len(p.runs) && p.need&^has == 0 && runsMatch(w.runs[len(w.runs)-len(p.runs):], p.runs) {
				return true
			}
		}
	}
	for _, p := range f.infix {
		if p.need&^has != 0 {
			continue
		}
		for i := 0; i+len(p.runs) <= len(w.runs); i++ {
			if runsMatch(w.runs[i:i+len(p.runs)], p.runs) {
				return true
			}
		}
	}
	return false
}

func runsMatch(w, p []run) bool {
	for i := range p {
		if w[i].c != p[i].c || w[i].n < p[i].n {
			return false
		}
	}
	return true
}

// maxMarks is how many combining marks one base character keeps in chat:
// enough for any language's accents written decomposed (Vietnamese stacks
// two, Hebrew with points and cantillation three), far short of "zalgo"
// text, whose dozens of stacked marks spill over the lines above and
// below it on the reader's screen.
const maxMarks = 3

// capMarks drops the combining marks beyond maxMarks after each base
// character; it returns s itself when nothing is dropped.
func capMarks(s string) string {
	n, over := 0, false
	for _, r := range s {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if n++; n > maxMarks {
				over = true
				break
			}
			continue
		}
		n = 0
	}
	if !over {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	n = 0
	for _, r := range s {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if n++; n > maxMarks {
				continue
			}
		} else {
			n = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}
