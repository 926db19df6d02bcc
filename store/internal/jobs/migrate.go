package jobs

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/invx/invx/store/internal/driver"
)

// Migrate applies the pending migrations of fsys (NNN_name.sql files, see
// driver.LoadMigrations) in one write transaction, after the engine's
// LockMigrations: processes that open a fresh database at once take turns,
// and the later ones find the migrations applied.
func (c *Core) Migrate(ctx context.Context, fsys fs.FS) error {
	ms, err := driver.LoadMigrations(fsys)
	if err != nil {
		return err
	}
	// Stored as the database's time where the engine has one.
	_, now, err := c.E.Clock(ctx, time.Now())
	if err != nil {
		return err
	}
	return c.write(ctx, regionMigrate, func(tx Tx) error {
		if err := c.E.LockMigrations(ctx, tx); err != nil {
			return fmt.Errorf("lock migrations: %w", err)
		}
		if err := tx.Script(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var cur int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&cur); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if cur > len(ms) {
			return fmt.Errorf("database schema version %d is newer than this invx (%d): upgrade invx", cur, len(ms))
		}
		for _, m := range driver.PendingMigrations(ms, cur) {
			if err := tx.Script(ctx, m.SQL); err != nil {
				return fmt.Errorf("apply migration %03d_%s: %w", m.Version, m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, now); err != nil {
				return fmt.Errorf("record migration %03d: %w", m.Version, err)
			}
		}
		return nil
	})
}

// Setup readies a driver's database: it applies the migrations of files'
// "migrations" folder, then loads the zstd dictionaries, which live in a
// table of migration 014.
func (c *Core) Setup(ctx context.Context, files fs.FS) error {
	sub, err := fs.Sub(files, "migrations")
	if err != nil {
		return err
	}
	if err := c.Migrate(ctx, sub); err != nil {
		return err
	}
	return c.OpenDicts(ctx, DictConfig{})
}
