-- Binary keys (issue 17, docs/storage.md): job keys and source digests are
-- kept as their 32 bytes (BYTEA) instead of 64 hex digits, in every table
-- and so in every index: half the bytes. The store converts at its
-- boundary (store/internal/jobs/keys.go); outside it a key is hex as
-- before. BYTEA compares bytewise, as the "C" collation of the hex did, so
-- a key prefix stays an index range. A value that is not 64 hex digits
-- (none that invx wrote) keeps its bytes, as the store keeps such a value.
--
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
-- kind and action id. Existing rows keep theirs. A row whose key does not start with its
-- result's job key (none that invx wrote) fails the NOT NULL: the
-- migration stops rather than lose it.
ALTER TABLE outbox ADD COLUMN event_suffix TEXT;
UPDATE outbox o SET event_suffix = CASE WHEN left(o.event_key, length(o.job_key) + 1) = o.job_key || ':'
        AND r.tenant = o.tenant AND r.job_key = o.job_key
    THEN substr(o.event_key, length(o.job_key) + 2) END
FROM results r WHERE r.id = o.result_id;
ALTER TABLE outbox ALTER COLUMN event_suffix SET NOT NULL;
ALTER TABLE outbox DROP COLUMN event_key, DROP COLUMN job_key, ADD CONSTRAINT outbox_event UNIQUE (result_id, event_suffix),
    ALTER COLUMN action_id DROP NOT NULL, ALTER COLUMN kind DROP NOT NULL;

ALTER TABLE jobs
    ALTER COLUMN job_key TYPE BYTEA USING CASE WHEN job_key ~ '^[0-9a-fA-F]{64}$' THEN decode(job_key, 'hex')
        ELSE convert_to(job_key, 'UTF8') END,
    ALTER COLUMN source_digest TYPE BYTEA USING CASE WHEN source_digest ~ '^[0-9a-fA-F]{64}$' THEN decode(source_digest, 'hex')
        ELSE convert_to(source_digest, 'UTF8') END,
    ALTER COLUMN prev_job_key TYPE BYTEA USING CASE WHEN prev_job_key ~ '^[0-9a-fA-F]{64}$' THEN decode(prev_job_key, 'hex')
        ELSE convert_to(prev_job_key, 'UTF8') END;
-- sources names the job its path points at by id, not by key (the job is
-- never deleted, and its key is one probe away): a row that names no job
-- fails the NOT NULL.
ALTER TABLE sources ADD COLUMN job_id BIGINT REFERENCES jobs (id);
UPDATE sources s SET job_id = j.id FROM jobs j WHERE j.tenant = s.tenant
    AND j.job_key = CASE WHEN s.job_key ~ '^[0-9a-fA-F]{64}$' THEN decode(s.job_key, 'hex') ELSE convert_to(s.job_key, 'UTF8') END;
ALTER TABLE sources
    ALTER COLUMN job_id SET NOT NULL,
    DROP COLUMN job_key,
    ALTER COLUMN digest TYPE BYTEA USING CASE WHEN digest ~ '^[0-9a-fA-F]{64}$' THEN decode(digest, 'hex')
        ELSE convert_to(digest, 'UTF8') END;
ALTER TABLE results
    ALTER COLUMN job_key TYPE BYTEA USING CASE WHEN job_key ~ '^[0-9a-fA-F]{64}$' THEN decode(job_key, 'hex')
        ELSE convert_to(job_key, 'UTF8') END;
-- A result's source digest was a copy of its job's: the duplicate lookup
-- reads the job's (results joins jobs there anyway). It was NULL for a
-- result committed without review or as shadow, which never has an
-- invoice number either, so is never a candidate.
ALTER TABLE results DROP COLUMN source_digest;
ALTER TABLE attempts
    ALTER COLUMN prompt_hash DROP DEFAULT,
    ALTER COLUMN prompt_hash TYPE BYTEA USING CASE WHEN prompt_hash ~ '^[0-9a-fA-F]{64}$' THEN decode(prompt_hash, 'hex')
        ELSE convert_to(prompt_hash, 'UTF8') END,
    ALTER COLUMN prompt_hash SET DEFAULT ''::bytea;
ALTER TABLE review_reasons
    ALTER COLUMN job_key TYPE BYTEA USING CASE WHEN job_key ~ '^[0-9a-fA-F]{64}$' THEN decode(job_key, 'hex')
        ELSE convert_to(job_key, 'UTF8') END;
ALTER TABLE result_revisions
    ALTER COLUMN job_key TYPE BYTEA USING CASE WHEN job_key ~ '^[0-9a-fA-F]{64}$' THEN decode(job_key, 'hex')
        ELSE convert_to(job_key, 'UTF8') END;
