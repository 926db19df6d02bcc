package cmd

import (
	"fmt"

	"github.com/invx/invx/schema"
)

// extractableSchema refuses a schema version that `invx schema` can print
// but that the pipeline does not produce yet (invoice-v2: the schema,
// prompt and validation exist; providers, export and eval are being wired
// to it). A job keyed under it would only end failed.
func extractableSchema(name string, try string) error {
	v, err := schema.Lookup(name)
	if err != nil {
		return &usageError{err: fmt.Errorf("--schema: %w", err), try: try}
	}
	if v.Name != schema.V1 {
		return &usageError{err: fmt.Errorf("--schema %s: not produced by the providers yet; invx schema %s prints it", v.Name, v.Name), try: try}
	}
	return nil
}
