package postgres

import "github.com/invx/invx/store/internal/jobstest"

// Fail makes the statements f picks fail in the database, inside s's write
// transactions (jobstest.Wrap).
func Fail(s *Store, f jobstest.Fault) {
	s.Core.E = jobstest.Wrap(s.Core.E, f)
}
