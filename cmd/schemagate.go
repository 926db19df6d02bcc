package cmd

import (
	"fmt"

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
