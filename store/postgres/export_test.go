package postgres

import "github.com/invx/invx/store/internal/jobstest"

// Fail replaces the statements f picks, inside s's write transactions, by
// with (jobstest.Wrap).
func Fail(s *Store, f jobstest.Fault, with string) {
	s.Core.E = jobstest.Wrap(s.Core.E, f, with)
}
