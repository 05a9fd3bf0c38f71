package app

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/termarena/termarena/cluster"
)

// nodeInstance is this process's incarnation as cluster node node, kept
// in a file of the data dir (cluster-NODE.instance) that the process
// locks for as long as it runs: the file names the process that last
// held the node's name from this data dir, and holding its lock proves
// that process gone, so a node restarted right after a kill -9 takes its
// name back at once (cluster.Incarnation). When the lock is another live
// process's (two nodes of one name sharing a data dir) or the platform
// has no file locks, Previous stays empty: the name's lapse is waited out
// as before. release unlocks it (at the node's end).
func nodeInstance(dir, node string) (inc cluster.Incarnation, release func(), err error) {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	inc.ID = hex.EncodeToString(b[:])
	release = func() {}
	path := filepath.Join(dir, "cluster-"+strings.ToLower(node)+".instance")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return inc, release, fmt.Errorf("the node's instance file: %w", err)
	}
	if !lockFile(f) {
		f.Close()
		return inc, release, nil
	}
	prev, err := io.ReadAll(io.LimitReader(f, 64))
	if err == nil {
		if err = f.Truncate(0); err == nil {
			if _, err = f.WriteAt([]byte(inc.ID), 0); err == nil {
				err = f.Sync()
			}
		}
	}
	if err != nil {
		f.Close()
		return inc, release, fmt.Errorf("the node's instance file %s: %w", path, err)
	}
	inc.Previous = strings.TrimSpace(string(prev))
	return inc, func() { f.Close() }, nil
}
