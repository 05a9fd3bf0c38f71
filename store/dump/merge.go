package dump

import (
	"crypto/sha256"
	"fmt"
	"strings"
)

// Counts is how many records of each kind an import added, and how many
// it found already there unchanged.
type Counts struct {
	Copied [numKinds]int
	Same   [numKinds]int
	// Moderators are the players among Copied and Same with a role.
	CopiedModerators, SameModerators int
}

// Total is the number of records added and the number found unchanged.
func (c Counts) Total() (copied, same int) {
	for k := range numKinds {
		copied += c.Copied[k]
		same += c.Same[k]
	}
	return copied, same
}

// Kinds lists every kind in export order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for k := range numKinds {
		ks[k] = k
	}
	return ks
}

// ConflictError is a record the target already holds with other content:
// the target is not an earlier copy of the source (or it has been used
// since), and overwriting it would lose what it holds.
type ConflictError struct {
	What string // the record, as a person would name it
	Why  string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("the target already holds %s %s; nothing was copied (migrate only adds to a new store or an earlier copy of this one)", e.What, e.Why)
}

// Merge decides, record by record, what an import adds. A backend's
// import opens one write transaction, passes every record the target
// holds to Have, then every incoming record to Add, writing those Add
// calls new. Any error ends the import with its transaction rolled back.
type Merge struct {
	have   [numKinds]map[string][sha256.Size]byte
	names  map[string]string // lower-case name → fingerprint, in the target and added
	counts Counts
}

// NewMerge is an empty merge.
func NewMerge() *Merge {
	m := &Merge{names: map[string]string{}}
	for k := range numKinds {
		m.have[k] = map[string][sha256.Size]byte{}
	}
	return m
}

// Have records that the target holds r.
func (m *Merge) Have(r Record) error {
	k, ok := r.Kind()
	if !ok {
		return fmt.Errorf("dump: the target holds a record of no single kind")
	}
	m.have[k][r.key()] = r.digest()
	if r.Player != nil {
		m.names[strings.ToLower(r.Player.Name)] = r.Player.Fingerprint
	}
	return nil
}

// Add reports whether r is new to the target (the caller writes it), or
// already there unchanged (nothing to write), or a *ConflictError.
func (m *Merge) Add(r Record) (isNew bool, err error) {
	k, ok := r.Kind()
	if !ok {
		return false, fmt.Errorf("dump: a record of no single kind")
	}
	key, sum := r.key(), r.digest()
	if had, found := m.have[k][key]; found {
		if had != sum {
			return false, &ConflictError{What: r.describe(), Why: "with different content"}
		}
		m.counts.Same[k]++
		if r.Player != nil && r.Player.Role != "" {
			m.counts.SameModerators++
		}
		return false, nil
	}
	if r.Player != nil {
		name := strings.ToLower(r.Player.Name)
		if fp, taken := m.names[name]; taken && fp != r.Player.Fingerprint {
			return false, &ConflictError{What: fmt.Sprintf("the name %q", r.Player.Name), Why: "for another key (" + fp + ")"}
		}
		m.names[name] = r.Player.Fingerprint
	}
	m.have[k][key] = sum
	m.counts.Copied[k]++
	if r.Player != nil && r.Player.Role != "" {
		m.counts.CopiedModerators++
	}
	return true, nil
}

// Counts is what Add decided so far.
func (m *Merge) Counts() Counts { return m.counts }
