//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package app

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock without waiting; false when another
// open file holds it. The kernel drops it when its process dies.
func lockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
