package idtable

import (
	"reflect"
	"strings"
	"testing"
)

// TestReader: two policies over rows (s, a), (s, b), (s, a), (t, a);
// by hand, s's table is a 0.25, b 0.75 under policy 0 and a 1, b 0 under
// policy 1; a repeated pair must repeat its pi_e, and a mass above 1 is
// refused, each naming the policy (bad) and the first line.
func TestReader(t *testing.T) {
	r := NewReader(2, "line")
	rows := []struct {
		o, a string
		pies []float64
	}{{"s", "a", []float64{0.25, 1}}, {"s", "b", []float64{0.75, 0}}, {"s", "a", []float64{0.25, 1}}, {"t", "a", []float64{1, 1}}}
	for i, row := range rows {
		if _, _, _, err := r.Add(row.o, row.a, row.pies, i+2); err != nil {
			t.Fatal(err)
		}
	}
	tabs := r.Tables()
	dst := make([]float64, 2)
	var got [][]float64
	for _, tab := range tabs {
		tab.PiE(0, dst)
		got = append(got, append([]float64(nil), dst...))
	}
	if !reflect.DeepEqual(got, [][]float64{{0.25, 0.75}, {1, 0}}) || tabs[0].ObsName(1) != "t" || tabs[1].ActionName(1) != "b" || tabs[0].Where(0, 1) != "line 3" {
		t.Errorf("tables %v, names %q %q, where %q", got, tabs[0].ObsName(1), tabs[1].ActionName(1), tabs[0].Where(0, 1))
	}
	if _, _, bad, err := r.Add("s", "b", []float64{0.75, 0.5}, 9); bad != 1 || err == nil || !strings.Contains(err.Error(), "which line 3 gave pi_e = 0") {
		t.Errorf("repeated pair: bad %d, %v", bad, err)
	}
	if _, _, bad, err := r.Add("t", "b", []float64{0.5, 0}, 10); bad != 0 || err == nil || !strings.Contains(err.Error(), "above 1") {
		t.Errorf("mass: bad %d, %v", bad, err)
	}
	long := strings.Repeat("x", 40)
	if Key("short") != "short" || len(Key(long)) != 33 || Key(long) == Key(long+"y") {
		t.Errorf("Key: %q, %d bytes", Key("short"), len(Key(long)))
	}
}
