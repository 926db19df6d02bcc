package cmd

import (
	"fmt"
	"strings"

	"github.com/invx/invx/schema"
)

// knownSchema checks a --schema flag against the released versions, so a
// typo is a usage error naming them rather than jobs that all fail.
func knownSchema(name string, try string) error {
	if _, err := schema.Lookup(name); err != nil {
		return &usageError{err: fmt.Errorf("--schema: %w (released: %s)", err, joinVersions()), try: try}
	}
	return nil
}

func joinVersions() string {
	out := ""
	for i, v := range schema.Versions() {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// schemaChoices names the released versions for a --schema flag's help,
// the default for new jobs first: "invoice-v2 or invoice-summary-v1".
// Cobra appends (default "invoice-v2") where the flag defaults to it; the
// list comes from the schema package, so the help follows a new default.
func schemaChoices() string {
	latest := schema.Latest().Name
	names := []string{latest}
	for _, v := range schema.Versions() {
		if v != latest {
			names = append(names, v)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
