package tui

// goGuarded runs f on a goroutine of the session. A panic in it ends the
// session through onPanic instead of the whole server; without onPanic
// (tests, tools) it panics as before.
func goGuarded(onPanic func(any), f func()) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				if onPanic == nil {
					panic(r)
				}
				onPanic(r)
			}
		}()
		f()
	}()
}
