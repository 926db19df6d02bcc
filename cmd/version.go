package cmd

import (
	"encoding/json"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/invx/invx/cmd.Version=v1.2.3".
var Version = ""

func versionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionLine is what invx version and invx --version print.
func versionLine(v string) string { return "invx " + v + "\n" }

func newCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the invx version",
		Example: "  invx version",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			_, err := io.WriteString(f.IO.Out, versionLine(versionString()))
			return err
		},
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
