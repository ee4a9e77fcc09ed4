package membudget

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"1024", 1024},
		{"512MiB", 512 << 20},
		{"512m", 512 << 20},
		{"8G", 8 << 30},
		{"1.5 GiB", 1.5 * (1 << 30)},
		{"2TiB", 2 << 40},
		{"50%", 0.5 * Physical()},
		{"100%", Physical()},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-1G", "1X", "1e400", "abc", "0%", "150%", "GiB", "NaN", "Inf"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", bad, got)
		}
	}
}

func TestPhysical(t *testing.T) {
	// Any machine running the tests has between 64 MiB and 64 TiB.
	if p := Physical(); p < 64<<20 || p > 64<<40 {
		t.Errorf("Physical() = %v bytes", p)
	}
	if Default() != DefaultFraction*Physical() {
		t.Error("Default is not DefaultFraction of Physical")
	}
	var f Flag
	if f.Bytes() != Default() || f.String() != "" {
		t.Error("zero Flag is not the default budget")
	}
	if err := f.Set("1GiB"); err != nil || f.Bytes() != 1<<30 || f.String() != "1GiB" {
		t.Errorf("Flag.Set(1GiB): %v, %v, %q", err, f.Bytes(), f.String())
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{{512, "512 B"}, {1536, "1.5 KiB"}, {3 << 30, "3 GiB"}, {1 << 41, "2 TiB"}} {
		if got := Format(c.b); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.b, got, c.want)
		}
	}
}
