-- Files a run found but did not process (not text, not UTF-8, too large,
-- unreadable): invx review lists them until a later run enqueues the path
-- or a person dismisses them, so no invoice goes missing silently. The same
-- table as store/sqlite/migrations/003_skipped_inputs.sql.
CREATE TABLE skipped_inputs (
    tenant         TEXT NOT NULL,
    source_system  TEXT NOT NULL,
    path           TEXT NOT NULL,
    reason         TEXT NOT NULL,
    detail         TEXT NOT NULL DEFAULT '',
    size           BIGINT NOT NULL DEFAULT 0,
    run_id         TEXT NOT NULL DEFAULT '',
    first_seen     BIGINT NOT NULL,
    last_seen      BIGINT NOT NULL,
    dismissed_at   BIGINT,
    dismiss_reason TEXT,
    PRIMARY KEY (tenant, source_system, path)
);
CREATE INDEX skipped_inputs_open ON skipped_inputs (tenant, first_seen) WHERE dismissed_at IS NULL;
