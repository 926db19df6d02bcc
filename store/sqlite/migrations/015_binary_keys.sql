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
UPDATE sources SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END,
    digest = CASE WHEN length(digest) = 64 AND unhex(digest) IS NOT NULL THEN unhex(digest) ELSE CAST(digest AS BLOB) END;
UPDATE results SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END,
    source_digest = CASE WHEN length(source_digest) = 64 AND unhex(source_digest) IS NOT NULL THEN unhex(source_digest)
        ELSE CAST(source_digest AS BLOB) END;
UPDATE review_reasons SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END;
UPDATE result_revisions SET
    job_key = CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END;

-- An outbox row's event key was <job_key>:<suffix>, the job key a second
-- time beside its own column, and the unique index held it a third time.
-- Now the row keeps the suffix (event_suffix: invoice.committed,
-- action:<action_id>, ...) and the idempotency key is (tenant, job_key,
-- event_suffix); readers put the event key back byte for byte. The table
-- is rebuilt to drop the old unique index (nothing references outbox). A
-- key that does not start with its job key (none that invx wrote) fails
-- the NOT NULL: the migration stops rather than lose it.
CREATE TABLE outbox_015 (
    id                INTEGER PRIMARY KEY,
    tenant            TEXT NOT NULL,
    job_key           BLOB NOT NULL,
    event_suffix      TEXT NOT NULL,
    result_id         INTEGER NOT NULL REFERENCES results (id),
    action_id         TEXT NOT NULL,
    kind              TEXT NOT NULL,
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
    UNIQUE (tenant, job_key, event_suffix)
);
INSERT INTO outbox_015 (id, tenant, job_key, event_suffix, result_id, action_id, kind, payload, state, attempts, next_try_at,
    last_error, created_at, delivered_at, lease_owner, lease_token, lease_expires_at, payload_zst, payload_result_at)
SELECT id, tenant,
    CASE WHEN length(job_key) = 64 AND unhex(job_key) IS NOT NULL THEN unhex(job_key) ELSE CAST(job_key AS BLOB) END,
    CASE WHEN substr(event_key, 1, length(job_key) + 1) = job_key || ':' THEN substr(event_key, length(job_key) + 2) END,
    result_id, action_id, kind, payload, state, attempts, next_try_at,
    last_error, created_at, delivered_at, lease_owner, lease_token, lease_expires_at, payload_zst, payload_result_at
FROM outbox ORDER BY id;
DROP TABLE outbox;
ALTER TABLE outbox_015 RENAME TO outbox;
CREATE INDEX outbox_pending ON outbox (state, next_try_at);
CREATE INDEX outbox_tenant ON outbox (tenant, state, id);
