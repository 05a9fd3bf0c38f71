package server

import "testing"

func TestSessionFPS(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want int
	}{
		{nil, 30},
		{[]string{"TERMARENA_FPS=60"}, 60},
		{[]string{"LANG=C", "TERMARENA_FPS=10"}, 10},
		{[]string{"TERMARENA_FPS=500"}, 30},
		{[]string{"TERMARENA_FPS=9"}, 30},
		{[]string{"TERMARENA_FPS=fast"}, 30},
	} {
		if got := sessionFPS(tc.env, 30); got != tc.want {
			t.Errorf("%v: %d, want %d", tc.env, got, tc.want)
		}
	}
}
