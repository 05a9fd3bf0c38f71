package lobby

import "strings"

// CodeBook keeps private rooms' join codes unique across a cluster and
// finds the room another node opened with one (cluster.Codes). Its calls
// may wait on the network (about a millisecond, a second at most): the
// rooms call them outside their lock, only when a private room opens or a
// code is not one of this node's.
type CodeBook interface {
	// Claim takes code for a room of this node: false when another
	// node's room has it; an error when that cannot be known now.
	Claim(code string) (bool, error)
	// Bind records the id of the room code opens.
	Bind(code, room string)
	// Release gives a closed room's code back; it does not wait.
	Release(code string)
	// Find is the room another node opened with code.
	Find(code string) (room, node, ssh string, ok bool)
}

// claimCode is a new join code for a private room, claimed across the
// cluster when there is one (a few tries: codes are 5 of 31 letters, 28
// million). When the book cannot answer, the code is this node's alone,
// and the log says so.
func (rs *Rooms) claimCode() string {
	if rs.cfg.Codes == nil {
		return newCode()
	}
	for range 8 {
		code := newCode()
		ok, err := rs.cfg.Codes.Claim(code)
		if err != nil {
			rs.log.Warn("a private room's join code is unique on this node only", "err", err)
			return code
		}
		if ok {
			return code
		}
	}
	return newCode()
}

// looksLikeCode says whether ref can be a join code: five letters of the
// code alphabet. Only those are looked up in the cluster's book.
func looksLikeCode(ref string) bool {
	if len(ref) != 5 {
		return false
	}
	for _, r := range ref {
		if !strings.ContainsRune(codeAlphabet, r) {
			return false
		}
	}
	return true
}

// elsewhereCode is the error for a join code of another node's room, nil
// when ref is none.
func (rs *Rooms) elsewhereCode(ref string) *ElsewhereError {
	if rs.cfg.Codes == nil || !looksLikeCode(ref) {
		return nil
	}
	room, node, ssh, ok := rs.cfg.Codes.Find(ref)
	if !ok {
		return nil
	}
	return &ElsewhereError{Room: room, Node: node, SSH: ssh, Code: ref}
}

// attachCode reaches the room another node runs under a join code: a
// handle on it, as for a room asked by id, when this node can reach other
// nodes' rooms.
func (rs *Rooms) attachCode(e *ElsewhereError) (*Room, error) {
	rs.mu.Lock()
	linker := rs.linker
	rs.mu.Unlock()
	if linker == nil || e.Room == "" {
		return nil, e
	}
	return rs.Attach(e.Room)
}
