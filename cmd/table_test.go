package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseAge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{in: "90d", want: 90 * 24 * time.Hour},
		{in: "7d", want: 7 * 24 * time.Hour},
		{in: "7d12h", want: 7*24*time.Hour + 12*time.Hour},
		{in: "36h", want: 36 * time.Hour},
		{in: "15m", want: 15 * time.Minute},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "", bad: true},
		{in: "d", bad: true},
		{in: "0d", bad: true},
		{in: "0s", bad: true},
		{in: "-1h", bad: true},
		{in: "-3d", bad: true},
		{in: "3d-1h", bad: true},
		{in: "3x", bad: true},
		{in: "1.5d", bad: true},
		{in: "7dd", bad: true},
		{in: "99999999d", bad: true},
	} {
		got, err := parseAge(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("parseAge(%q) = %s, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseAge(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestHumanAge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{
		{-time.Minute, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{time.Minute, "1m"},
		{59*time.Minute + 59*time.Second, "59m"},
		{3*time.Hour + 10*time.Minute, "3h"},
		{47 * time.Hour, "47h"},
		{48 * time.Hour, "2d"},
		{400 * 24 * time.Hour, "400d"},
	} {
		if got := humanAge(now, now.Add(-tc.ago)); got != tc.want {
			t.Errorf("humanAge(%s ago) = %q, want %q", tc.ago, got, tc.want)
		}
	}
	if got := humanAge(now, time.Time{}); got != "" {
		t.Errorf("zero time: %q", got)
	}
}

func TestTablePrinter(t *testing.T) {
	t.Parallel()
	rows := [][]string{
		{"16afdc8c7cf2", "succeeded", "a.txt"},
		{"d7f947816425", "held", "evil\tname\n.txt"},
		{"51a80895af62", "rejected", "Bäckerei/ü.txt"},
	}
	for _, tc := range []struct {
		name string
		tty  bool
		want string
	}{
		{"terminal", true, "KEY           STATE      PATH\n" +
			"16afdc8c7cf2  succeeded  a.txt\n" +
			"d7f947816425  held       \"evil\\tname\\n.txt\"\n" +
			"51a80895af62  rejected   Bäckerei/ü.txt\n"},
		{"piped", false, "16afdc8c7cf2\tsucceeded\ta.txt\n" +
			"d7f947816425\theld\t\"evil\\tname\\n.txt\"\n" +
			"51a80895af62\trejected\tBäckerei/ü.txt\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tp := newTable(&b, tc.tty, "KEY", "STATE", "PATH")
			for _, r := range rows {
				tp.addRow(r...)
			}
			if err := tp.render(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	// A capped column is cut on a terminal only.
	for _, tty := range []bool{true, false} {
		var b strings.Builder
		tp := newTable(&b, tty, "A", "B")
		tp.capColumn(0, 5)
		tp.addRow("abcdefgh", "x")
		if err := tp.render(); err != nil {
			t.Fatal(err)
		}
		want := "abcdefgh\tx\n"
		if tty {
			want = "A      B\nabcd…  x\n"
		}
		if b.String() != want {
			t.Errorf("tty=%v: %q, want %q", tty, b.String(), want)
		}
	}
}

func TestNoFormula(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"=SUM(A1:A9)": "'=SUM(A1:A9)",
		"+33-1":       "'+33-1",
		"-2+3":        "'-2+3",
		"@cmd":        "'@cmd",
		"\tx":         "'\tx",
		"\rx":         "'\rx",
		"ACME = 1":    "ACME = 1",
		"":            "",
		"'quoted":     "'quoted",
	} {
		if got := noFormula(in); got != want {
			t.Errorf("noFormula(%q) = %q, want %q", in, got, want)
		}
	}
}
