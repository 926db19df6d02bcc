-- Batch submissions (issue 18, docs/batch.md): a set of leased jobs sent to
-- a provider's batch API as one submission, recorded before it is sent
-- (preparing), so a process that dies between the provider's reply and the
-- store's record leaves a trace the next collector resolves instead of
-- paying again. owner, token and lease_expires_at are the batch lease (who
-- polls and collects it now); every write to a batch is fenced by token.
CREATE TABLE batches (
    id               INTEGER PRIMARY KEY,
    provider         TEXT NOT NULL,
    model            TEXT NOT NULL DEFAULT '',
    remote_id        TEXT,
    input_file_id    TEXT,
    state            TEXT NOT NULL,
    remote_status    TEXT NOT NULL DEFAULT '',
    requests         INTEGER NOT NULL DEFAULT 0,
    done             INTEGER NOT NULL DEFAULT 0,
    failed           INTEGER NOT NULL DEFAULT 0,
    owner            TEXT,
    token            INTEGER NOT NULL DEFAULT 0,
    lease_expires_at INTEGER,
    run_id           TEXT NOT NULL DEFAULT '',
    parent_id        INTEGER REFERENCES batches (id),
    created_at       INTEGER NOT NULL,
    submitted_at     INTEGER,
    ended_at         INTEGER,
    message          TEXT NOT NULL DEFAULT ''
);
-- A provider's batch is recorded once: adopting it twice is an error.
CREATE UNIQUE INDEX batches_remote ON batches (provider, remote_id) WHERE remote_id IS NOT NULL;
-- ClaimBatches and prune look at unfinished batches only.
CREATE INDEX batches_open ON batches (state, id) WHERE state IN ('preparing', 'submitted');

-- One request of a batch: the job, the lease token it had when the batch
-- was recorded (its answer commits only under that token) and the attempt
-- the request answers.
CREATE TABLE batch_items (
    batch_id   INTEGER NOT NULL REFERENCES batches (id),
    custom_id  TEXT NOT NULL,
    job_id     INTEGER NOT NULL REFERENCES jobs (id),
    token      INTEGER NOT NULL,
    attempt_id INTEGER NOT NULL REFERENCES attempts (id),
    PRIMARY KEY (batch_id, custom_id)
);
CREATE INDEX batch_items_job ON batch_items (job_id);

-- The batch (provider's id) and request an attempt was; NULL for a
-- synchronous call. Batch attempts are priced at the batch discount.
ALTER TABLE attempts ADD COLUMN batch_id TEXT;
ALTER TABLE attempts ADD COLUMN custom_id TEXT;
