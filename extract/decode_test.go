package extract_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
)

func utf16le(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			out = append(out, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func utf16be(s string) []byte {
	le := utf16le(s, false)
	out := []byte{0xFE, 0xFF}
	for i := 0; i < len(le); i += 2 {
		out = append(out, le[i+1], le[i])
	}
	return out
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		enc      string
		in       []byte
		want     string // normalised text
		wantName string
		wantErr  string // substring of the error; the skip reason below
		reason   string
	}{
		{name: "utf-8 as is", enc: "auto", in: []byte("Müller GmbH\n1.234,56 €\n"), want: "Müller GmbH\n1.234,56 €\n", wantName: "utf-8"},
		{name: "utf-8 bom dropped", enc: "auto", in: []byte("\uFEFFRechnung\r\n"), want: "Rechnung\n", wantName: "utf-8"},
		{name: "empty is utf-8", enc: "", in: nil, want: "", wantName: "utf-8"},
		{name: "cp1252 fallback", enc: "auto", in: []byte("M\xfcller GmbH\r\nSumme 1.234,56 \x80\r\n\x84Zitat\x93 \x96 Stra\xdfe\n"),
			want: "Müller GmbH\nSumme 1.234,56 €\n„Zitat“ – Straße\n", wantName: "windows-1252"},
		{name: "utf-16le bom", enc: "auto", in: utf16le("Müller GmbH\r\n€ 12,50 😀\r\n", true), want: "Müller GmbH\n€ 12,50 😀\n", wantName: "utf-16le"},
		{name: "utf-16be bom", enc: "auto", in: utf16be("Müller GmbH\n€ 12,50\n"), want: "Müller GmbH\n€ 12,50\n", wantName: "utf-16be"},
		{name: "utf-16 without bom is binary under auto", enc: "auto", in: utf16le("Invoice\n", false), wantErr: "NUL byte", reason: "binary"},
		{name: "nul is binary, not cp1252", enc: "auto", in: []byte("M\xfcller\x00GmbH"), wantErr: "NUL byte) at byte 6", reason: "binary"},
		{name: "control byte is binary", enc: "auto", in: []byte("\x89PNG\r\n\x1a\n\x02\xff"), wantErr: "control byte 0x02", reason: "binary"},
		{name: "undefined cp1252 byte", enc: "auto", in: []byte("Caf\x81 invoice"), wantErr: "byte 0x81 is undefined) at byte 3", reason: "undecodable"},
		{name: "utf-8 strict", enc: "utf-8", in: []byte("M\xfcller GmbH\n"), wantErr: "not valid UTF-8 at byte 1", reason: "not_utf8"},
		{name: "utf-8 strict valid", enc: "utf-8", in: []byte("Müller\r\n"), want: "Müller\n", wantName: "utf-8"},
		{name: "forced windows-1252 on utf-8 bytes", enc: "windows-1252", in: []byte("Müller"), want: "MÃ¼ller", wantName: "windows-1252"},
		{name: "iso-8859-1", enc: "iso-8859-1", in: []byte("M\xfcller \xa4 \x80"), want: "Müller ¤ \u0080", wantName: "iso-8859-1"},
		{name: "utf-16 without bom is little-endian", enc: "utf-16", in: utf16le("Rechnung €\n", false), want: "Rechnung €\n", wantName: "utf-16le"},
		{name: "utf-16 odd length", enc: "utf-16", in: append(utf16le("ab", true), 'c'), wantErr: "odd number of bytes", reason: "undecodable"},
		{name: "utf-16 lone surrogate", enc: "utf-16", in: []byte{0xFF, 0xFE, 'a', 0, 0x00, 0xD8, 'b', 0}, wantErr: "unpaired surrogate) at byte 4", reason: "undecodable"},
		{name: "utf-16 lone low surrogate", enc: "auto", in: []byte{0xFF, 0xFE, 0x00, 0xDC}, wantErr: "unpaired surrogate) at byte 2", reason: "undecodable"},
		{name: "undefined byte, windows-1252 asked", enc: "windows-1252", in: []byte("a\x9db"), wantErr: "byte 0x9d", reason: "undecodable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text, name, err := decodeNormalize(tc.in, tc.enc)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Decode = %q (%s), %v; want an error containing %q", text, name, err, tc.wantErr)
				}
				var ne *extract.NormalizeError
				if !errors.As(err, &ne) {
					t.Errorf("error %v is not a *NormalizeError", err)
				}
				// The skip reason the run reports, through Discover.
				if got := discoverReason(t, tc.in, tc.enc); got != tc.reason {
					t.Errorf("skip reason %q, want %q", got, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tc.want, text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if name != tc.wantName {
				t.Errorf("decoding %q, want %q", name, tc.wantName)
			}
		})
	}
}

func decodeNormalize(raw []byte, enc string) (string, string, error) {
	utf, name, err := extract.Decode(raw, enc)
	if err != nil {
		return "", "", err
	}
	text, err := extract.Normalize(utf)
	return text, name, err
}

// discoverReason runs Discover on one file holding raw and returns the
// reason it was skipped for ("" when taken).
func discoverReason(t *testing.T, raw []byte, enc string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	reason := ""
	err := extract.Discover(t.Context(), dir, extract.DiscoverOptions{Encoding: enc},
		func(extract.Found) error { return nil },
		func(s extract.Skipped) { reason = s.Reason })
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return reason
}

// A Windows-1252 export and its UTF-8 twin are one document: one digest,
// so one job key; only the recorded decoding differs.
func TestWindows1252TwinHasTheUTF8Digest(t *testing.T) {
	t.Parallel()
	utf := "Müller GmbH\nRechnung Nr. 4711\nGesamtbetrag 1.234,56 €\n"
	cp := []byte(strings.ReplaceAll("M\xfcller GmbH\nRechnung Nr. 4711\nGesamtbetrag 1.234,56 \x80\n", "\n", "\r\n"))
	dir := t.TempDir()
	for name, b := range map[string][]byte{"a-utf8.txt": []byte(utf), "b-cp1252.txt": cp} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []extract.Found
	err := extract.Discover(t.Context(), dir, extract.DiscoverOptions{},
		func(f extract.Found) error { got = append(got, f); return nil },
		func(s extract.Skipped) { t.Errorf("skipped %s: %s", s.Path, s.Detail) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("found %d documents, want 2", len(got))
	}
	if got[0].Digest != got[1].Digest || got[0].Digest != extract.Digest(utf) || got[0].Text != got[1].Text {
		t.Errorf("digests %s and %s, want both %s", got[0].Digest, got[1].Digest, extract.Digest(utf))
	}
	if got[0].Encoding != "utf-8" || got[1].Encoding != "windows-1252" {
		t.Errorf("encodings %q, %q, want utf-8, windows-1252", got[0].Encoding, got[1].Encoding)
	}
}

func TestIncludeMatchesExtensionInAnyCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*.txt", "a.txt", true},
		{"*.txt", "INVOICE_001.TXT", true},
		{"*.txt", "b.Txt", true},
		{"*.TXT", "c.txt", true},
		{"*.txt", "d.md", false},
		{"*.txt", "txt", false},
		{"*.txt", "e.txt.bak", false},
		{"inv-*.txt", "INV-1.txt", false}, // only the extension ignores case
		{"inv-*.txt", "inv-1.TXT", true},
		{"*", "Anything.PDF", true},
		{"*.[tT]xt", "f.TXT", true},
	} {
		if got := extract.Included(tc.pattern, tc.name); got != tc.want {
			t.Errorf("Included(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}
