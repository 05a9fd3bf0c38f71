package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times. It is 100 on
// every Linux architecture Go supports (the kernel's HZ may differ, but
// the value exported to user space does not).
const clockTicks = 100

// cpuOf returns a process's user+system CPU time so far, from
// /proc/PID/stat fields 14 and 15 (utime, stime). ok is false where there
// is no such file (not Linux, or the process is gone).
func cpuOf(pid int) (time.Duration, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStat(string(raw))
}

func parseStat(s string) (time.Duration, bool) {
	// The command name (field 2) is in parentheses and may itself hold
	// spaces or parentheses: count fields from the last ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so utime (14) and stime (15) are f[11], f[12].
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * time.Second / clockTicks, true
}

// rssOf returns a process's resident set size from the VmRSS line of
// /proc/PID/status.
func rssOf(pid int) (uint64, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	return parseVmRSS(string(raw))
}

func parseVmRSS(s string) (uint64, bool) {
	for line := range strings.Lines(s) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// switchesOf returns how many times a process's threads have been switched
// out so far: the sum over /proc/PID/task/*/status of
// voluntary_ctxt_switches (a thread went to sleep: in epoll, on a futex,
// a timer) and nonvoluntary_ctxt_switches (preempted). Each wakeup of a
// sleeping thread ends in one, so the rate of change counts wakeups: the
// figure for "an idle session wakes nothing". Threads that exited take
// their counts with them (Go seldom ends threads).
func switchesOf(pid int) (uint64, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	var sum uint64
	found := false
	for _, t := range tasks {
		raw, err := os.ReadFile(dir + "/" + t.Name() + "/status")
		if err != nil {
			continue // the thread ended meanwhile
		}
		if n, ok := parseSwitches(string(raw)); ok {
			sum += n
			found = true
		}
	}
	return sum, found
}

func parseSwitches(s string) (uint64, bool) {
	var sum uint64
	seen := 0
	for line := range strings.Lines(s) {
		rest, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:")
		if !ok {
			rest, ok = strings.CutPrefix(line, "nonvoluntary_ctxt_switches:")
		}
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
		if err != nil {
			return 0, false
		}
		sum += n
		seen++
	}
	return sum, seen == 2
}
