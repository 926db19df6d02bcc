package driver

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one numbered schema change, applied once, in order.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads NNN_name.sql files from fsys's root. Each driver
// embeds its own folder; numbering must be dense from 1 so that a missing
// file is caught at build time by the drivers' tests, not at a user's open.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".sql" {
			continue
		}
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		if !ok {
			return nil, fmt.Errorf("migration %s: name must be NNN_name.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: bad version number", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		ms = append(ms, Migration{Version: v, Name: rest, SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %03d_%s: versions must run 1..n without gaps", m.Version, m.Name)
		}
	}
	return ms, nil
}

// PendingMigrations returns the migrations newer than current.
func PendingMigrations(ms []Migration, current int) []Migration {
	var out []Migration
	for _, m := range ms {
		if m.Version > current {
			out = append(out, m)
		}
	}
	return out
}
