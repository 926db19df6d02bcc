package extract

import (
	"fmt"
	"regexp"
)

var tenantRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidateTenant checks a tenant id: lowercase letters, digits, '.', '_' and
// '-', starting with a letter or digit, at most 64 bytes. The narrow alphabet
// keeps tenant ids safe in job keys, file names and metric labels.
func ValidateTenant(t string) error {
	if !tenantRE.MatchString(t) {
		return fmt.Errorf("tenant %q: must match [a-z0-9][a-z0-9._-]{0,63}", t)
	}
	return nil
}
