package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"

	"github.com/termarena/termarena/store"
)

// The layout of bbolt's meta pages (go.etcd.io/bbolt/internal/common:
// page and Meta). Both meta pages, at page 0 and page 1, describe the file;
// bbolt uses the valid one with the higher transaction id. The values are
// in the machine's byte order, as bbolt writes them.
const (
	boltMagic   = 0xED0CDAED
	boltVersion = 2

	metaOffset   = 16 // the page header: id u64, flags u16, count u16, overflow u32
	metaSumStart = metaOffset
	metaSumEnd   = metaOffset + 56 // the checksum covers the meta up to itself
	metaLen      = metaSumEnd + 8
)

// boltMeta is what the check needs of a meta page.
type boltMeta struct {
	pageSize uint32
	root     uint64 // page of the root bucket
	freelist uint64 // page of the freelist, or all ones when not synced
	pgid     uint64 // the high-water mark: pages the file must hold
	txid     uint64
}

// parseMeta decodes and validates the meta page at the start of b.
func parseMeta(b []byte) (boltMeta, error) {
	if len(b) < metaLen {
		return boltMeta{}, errors.New("cut short")
	}
	e := binary.NativeEndian
	m := b[metaOffset:]
	if e.Uint32(m[0:]) != boltMagic {
		return boltMeta{}, errors.New("not a bbolt meta page")
	}
	if v := e.Uint32(m[4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("format version %d", v)
	}
	h := fnv.New64a()
	h.Write(b[metaSumStart:metaSumEnd])
	if h.Sum64() != e.Uint64(b[metaSumEnd:]) {
		return boltMeta{}, errors.New("checksum mismatch")
	}
	return boltMeta{
		pageSize: e.Uint32(m[8:]),
		root:     e.Uint64(m[16:]),
		freelist: e.Uint64(m[32:]),
		pgid:     e.Uint64(m[40:]),
		txid:     e.Uint64(m[48:]),
	}, nil
}

// checkFile looks at an existing data file before bbolt maps it: bbolt
// trusts its meta page, and reading a page the file no longer holds ends
// the process with a fault no recover can catch (or panics on the
// freelist), so a cut-short file must be told apart here. It reports
// ErrEmptyFile, an error wrapping ErrDamaged, or nil for a file that bbolt
// can open.
func checkFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size == 0 {
		return store.ErrEmptyFile
	}
	head := make([]byte, 4096)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	meta0, err0 := parseMeta(head[:n])
	// Meta page 1 sits one page in; its size comes from meta page 0, or,
	// when that one is the damaged one, from the sizes bbolt uses.
	sizes := []uint32{4096, 8192, 16384, 32768, 65536}
	if err0 == nil {
		sizes = []uint32{meta0.pageSize}
	} else if ps := uint32(os.Getpagesize()); !slices.Contains(sizes, ps) {
		sizes = append([]uint32{ps}, sizes...)
	}
	var meta1 boltMeta
	err1 := errors.New("cut short")
	buf := make([]byte, metaLen)
	for _, ps := range sizes {
		if _, err := f.ReadAt(buf, int64(ps)); err != nil {
			continue
		}
		if m, err := parseMeta(buf); err == nil && m.pageSize == ps {
			meta1, err1 = m, nil
			break
		} else if err != nil {
			err1 = err
		}
	}
	var m boltMeta
	switch {
	case err0 == nil && (err1 != nil || meta0.txid >= meta1.txid):
		m = meta0
	case err1 == nil:
		m = meta1
	default:
		return fmt.Errorf("%w: neither meta page is valid (page 0: %v; page 1: %v)", store.ErrDamaged, err0, err1)
	}
	if m.pageSize < 1024 || m.pageSize&(m.pageSize-1) != 0 {
		return fmt.Errorf("%w: page size %d", store.ErrDamaged, m.pageSize)
	}
	if m.root >= m.pgid || (m.freelist >= m.pgid && m.freelist != ^uint64(0)) {
		return fmt.Errorf("%w: meta page points past its own end (root %d, freelist %d, %d pages)", store.ErrDamaged, m.root, m.freelist, m.pgid)
	}
	if want := int64(m.pgid) * int64(m.pageSize); size < want {
		return fmt.Errorf("%w: it is %d bytes long but holds %d pages of %d bytes (%d bytes): it was cut short",
			store.ErrDamaged, size, m.pgid, m.pageSize, want)
	}
	return nil
}

// checkExisting opens path read-only and checks it; a missing file is
// fine (Open makes a new one) and reported as such.
func checkExisting(path string) (missing bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	return false, checkFile(f)
}

// guarded runs fn, turning a panic or a memory fault inside it (bbolt
// reading a damaged page: "invalid freelist page", "invalid page type", a
// SIGBUS/SIGSEGV on a page the file does not hold) into an error wrapping
// ErrDamaged that names what was being done. SetPanicOnFault applies to
// this goroutine only, so fn must not hand the work to another one.
func guarded(what string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s failed: %v", store.ErrDamaged, what, r)
		}
	}()
	return fn()
}
