package cmdargs

import (
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args  []string
		pos   []string
		bools map[string]bool
		vals  map[string]string
		bad   bool
	}{
		{args: []string{"bob", "1d", "spam", "--ip", "1.2.3.4"}, pos: []string{"bob", "1d", "spam"}, vals: map[string]string{"ip": "1.2.3.4"}},
		{args: []string{"--ip=1.2.3.4", "bob"}, pos: []string{"bob"}, vals: map[string]string{"ip": "1.2.3.4"}},
		{args: []string{"--json", "--all"}, bools: map[string]bool{"json": true, "all": true}},
		{args: []string{"bob", "-5m"}, pos: []string{"bob", "-5m"}},
		{args: []string{"bob", "--", "--not-a-flag", "-x"}, pos: []string{"bob", "--not-a-flag", "-x"}},
		{args: []string{"bob", "-x"}, bad: true},
		{args: []string{"--ip"}, bad: true},
		{args: []string{"--json=yes"}, bad: true},
		{args: []string{"--since", "1h"}, bad: true}, // not one of this command's flags
	}
	for _, tt := range tests {
		p, err := Parse(tt.args, []string{"json", "all"}, []string{"ip"})
		if tt.bad {
			if err == nil {
				t.Errorf("Parse(%q) accepted it: %+v", tt.args, p)
			}
			continue
		}
		if tt.bools == nil {
			tt.bools = map[string]bool{}
		}
		if tt.vals == nil {
			tt.vals = map[string]string{}
		}
		if err != nil || !reflect.DeepEqual(p.Pos, tt.pos) || !reflect.DeepEqual(p.Bools, tt.bools) || !reflect.DeepEqual(p.Vals, tt.vals) {
			t.Errorf("Parse(%q) = %+v, %v; want pos %q bools %v vals %v", tt.args, p, err, tt.pos, tt.bools, tt.vals)
		}
	}
}

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
		bad  bool
	}{
		{nil, 20, false}, {[]string{"--limit", "5"}, 5, false}, {[]string{"--limit=200"}, 200, false},
		{[]string{"--limit", "0"}, 0, true}, {[]string{"--limit", "201"}, 0, true}, {[]string{"--limit", "x"}, 0, true},
	} {
		p, err := Parse(c.args, nil, []string{"limit"})
		if err != nil {
			t.Fatal(err)
		}
		n, err := p.Limit(20, 200)
		if c.bad != (err != nil) || !c.bad && n != c.want {
			t.Errorf("Limit of %q = %d, %v; want %d (error: %v)", c.args, n, err, c.want, c.bad)
		}
	}
}
