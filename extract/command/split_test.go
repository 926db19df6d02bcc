package command_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract/command"
)

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "./extract.sh", want: []string{"./extract.sh"}},
		{in: "  python3   -m  invoice_llm\t--fast ", want: []string{"python3", "-m", "invoice_llm", "--fast"}},
		{in: `llm -m 'gpt 4o' --system "be brief"`, want: []string{"llm", "-m", "gpt 4o", "--system", "be brief"}},
		{in: `a 'it''s' b`, want: []string{"a", "its", "b"}},
		{in: `a "it's" 'say "hi"'`, want: []string{"a", "it's", `say "hi"`}},
		{in: `a '' ""`, want: []string{"a", "", ""}},
		{in: `a\ b c\\d \'e`, want: []string{"a b", `c\d`, "'e"}},
		{in: `"a \" \\ \$ \x"`, want: []string{`a " \ $ \x`}},
		{in: `'no \escapes\ here'`, want: []string{`no \escapes\ here`}},
		{in: "a\\\nb", want: []string{"ab"}},
		{in: `pre"mid"'post' x`, want: []string{"premidpost", "x"}},
		{in: `sh -c 'jq . | head -c 100'`, want: []string{"sh", "-c", "jq . | head -c 100"}},
		{in: `echo "$HOME" \$x`, want: []string{"echo", "$HOME", "$x"}},
		{in: "", err: "empty command"},
		{in: "   \t ", err: "empty command"},
		{in: `a 'open`, err: "unterminated ' quote starting at byte 2"},
		{in: `a "open \"`, err: `unterminated " quote starting at byte 2`},
		{in: `a \`, err: "lone backslash"},
		{in: `extract.sh | jq .`, err: `unquoted '|' at byte 11`},
		{in: `extract.sh > out`, err: `unquoted '>'`},
		{in: `extract.sh $MODEL`, err: `unquoted '$'`},
		{in: "a;b", err: `unquoted ';'`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := command.SplitCommand(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("SplitCommand(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitCommand(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
