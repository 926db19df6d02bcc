package sqlite

import "database/sql"

// Pools hands the driver's own tests the store's writer and reader pools,
// to check their settings; nothing outside this package's tests sees them.
func Pools(s *Store) (writer, reader *sql.DB) { return s.w, s.r }
