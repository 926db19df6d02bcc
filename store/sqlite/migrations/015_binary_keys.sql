-- Binary keys (issue 17, docs/storage.md): job keys and source digests are
-- kept as their 32 bytes (a BLOB in these TEXT columns: a TEXT column keeps
-- a BLOB as it is) instead of 64 hex digits, in every table and so in
-- every index: half the bytes. The store converts at its boundary
-- (store/internal/jobs/keys.go); outside it a key is hex as before. A value
-- that is not 64 hex digits (none that invx wrote) keeps its bytes, as the
-- store keeps such a value today.
UPDATE jobs SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END,
    source_digest = CASE WHEN length(source_digest) = 64 AND unhex(source_digest) IS NOT NULL THEN unhex(source_digest)
        ELSE CAST(source_digest AS BLOB) END,
    prev_job_key = CASE WHEN length(prev_job_key) = 64 AND unhex(prev_job_key) IS NOT NULL THEN unhex(prev_job_key)
        ELSE CAST(prev_job_key AS BLOB) END;
-- sources is rebuilt WITHOUT ROWID: its rows (about 130 bytes) live in its
-- primary key's b-tree instead of a table plus an index that repeats the
-- key (tenant, source_system, path). Nothing references it by rowid. It
-- names the job its path points at by id, not by key (the job is never
-- deleted, and its key is one probe away): a row that names no job fails
-- the NOT NULL.
CREATE TABLE sources_015 (
    tenant        TEXT NOT NULL,
    source_system TEXT NOT NULL,
    path          TEXT NOT NULL,
    digest        BLOB NOT NULL,
    job_id        INTEGER NOT NULL REFERENCES jobs (id),
    updated_at    INTEGER NOT NULL,
    file_size     INTEGER,
    file_mtime_ns INTEGER,
    file_inode    INTEGER,
    read_opts     TEXT,
    PRIMARY KEY (tenant, source_system, path)
) WITHOUT ROWID;
INSERT INTO sources_015 (tenant, source_system, path, digest, job_id, updated_at, file_size, file_mtime_ns, file_inode, read_opts)
SELECT s.tenant, s.source_system, s.path,
    CASE WHEN length(s.digest) = 64 AND unhex(s.digest) IS NOT NULL THEN unhex(s.digest) ELSE CAST(s.digest AS BLOB) END,
    (SELECT j.id FROM jobs j WHERE j.tenant = s.tenant AND j.job_key = CASE WHEN length(s.job_key) = 64 AND unhex(s.job_key) IS NOT NULL
        THEN unhex(s.job_key) ELSE CAST(s.job_key AS BLOB) END),
    s.updated_at, s.file_size, s.file_mtime_ns, s.file_inode, s.read_opts
FROM sources s;
DROP TABLE sources;
ALTER TABLE sources_015 RENAME TO sources;
UPDATE results SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END;
-- A result's source digest was a copy of its job's: the duplicate lookup
-- reads the job's (results joins jobs there anyway). It was NULL for a
-- result committed without review or as shadow, which never has an
-- invoice number either, so is never a candidate.
ALTER TABLE results DROP COLUMN source_digest;
UPDATE attempts SET
    prompt_hash = CASE WHEN length(prompt_hash) = 64 AND unhex(prompt_hash) IS NOT NULL THEN unhex(prompt_hash)
        ELSE CAST(prompt_hash AS BLOB) END
    WHERE prompt_hash <> '';
UPDATE review_reasons SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END;
UPDATE result_revisions SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END;

-- An outbox row's event key was <job_key>:<suffix>: the job key a second
-- time beside its own column, and the unique index held it a third time.
-- Now the row keeps the suffix (event_suffix: invoice.committed,
-- action:<action_id>, ...) and neither copy of the job key: its result row
-- has it (a result is the one row of its (tenant, job key), never
-- deleted), readers take it from there and put the event key back byte for
-- byte, and the idempotency key (tenant, job key, suffix) is UNIQUE
-- (result_id, event_suffix). action_id and kind are NULL where the suffix
-- says them (store/internal/jobs/keys.go, eventCols): an action item's
-- suffix is action:<action_id>, an invoice.committed event's suffix is its
-- kind and action id. Rows copied here keep theirs. The table is rebuilt to drop the old unique
-- index (nothing references outbox). A row whose key does not start with
-- its result's job key (none that invx wrote) fails the NOT NULL: the
-- migration stops rather than lose it.
CREATE TABLE outbox_015 (
    id                INTEGER PRIMARY KEY,
    tenant            TEXT NOT NULL,
    result_id         INTEGER NOT NULL REFERENCES results (id),
    event_suffix      TEXT NOT NULL,
    action_id         TEXT,
    kind              TEXT,
    payload           TEXT NOT NULL,
    state             TEXT NOT NULL DEFAULT 'pending',
    attempts          INTEGER NOT NULL DEFAULT 0,
    next_try_at       INTEGER,
    last_error        TEXT,
    created_at        INTEGER NOT NULL,
    delivered_at      INTEGER,
    lease_owner       TEXT,
    lease_token       INTEGER NOT NULL DEFAULT 0,
    lease_expires_at  INTEGER,
    payload_zst       BLOB,
    payload_result_at INTEGER,
    UNIQUE (result_id, event_suffix)
);
INSERT INTO outbox_015 (id, tenant, result_id, event_suffix, action_id, kind, payload, state, attempts, next_try_at,
    last_error, created_at, delivered_at, lease_owner, lease_token, lease_expires_at, payload_zst, payload_result_at)
SELECT o.id, o.tenant, o.result_id,
    CASE WHEN substr(o.event_key, 1, length(o.job_key) + 1) = o.job_key || ':'
        AND r.tenant = o.tenant AND r.job_key = CASE WHEN length(o.job_key) = 64 AND unhex(o.job_key) IS NOT NULL
            THEN unhex(o.job_key) ELSE CAST(o.job_key AS BLOB) END
        THEN substr(o.event_key, length(o.job_key) + 2) END,
    o.action_id, o.kind, o.payload, o.state, o.attempts, o.next_try_at,
    o.last_error, o.created_at, o.delivered_at, o.lease_owner, o.lease_token, o.lease_expires_at, o.payload_zst, o.payload_result_at
FROM outbox o LEFT JOIN results r ON r.id = o.result_id ORDER BY o.id;
DROP TABLE outbox;
ALTER TABLE outbox_015 RENAME TO outbox;
CREATE INDEX outbox_pending ON outbox (state, next_try_at);
CREATE INDEX outbox_tenant ON outbox (tenant, state, id);
