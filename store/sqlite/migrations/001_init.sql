-- Times are Unix milliseconds (UTC) so both drivers compare them the same way.

CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    tenant         TEXT NOT NULL,
    command        TEXT NOT NULL,
    owner          TEXT NOT NULL DEFAULT '',
    provider       TEXT NOT NULL DEFAULT '',
    schema_version TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT 'running',
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER,
    summary        TEXT
);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE jobs (
    id               INTEGER PRIMARY KEY,
    tenant           TEXT NOT NULL,
    job_key          TEXT NOT NULL,
    transformation   TEXT NOT NULL,
    schema_version   TEXT NOT NULL,
    source_digest    TEXT NOT NULL,
    source_system    TEXT NOT NULL,
    source_path      TEXT NOT NULL,
    source_text      TEXT,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    lease_owner      TEXT,
    lease_token      INTEGER NOT NULL DEFAULT 0,
    lease_expires_at INTEGER,
    next_attempt_at  INTEGER,
    held_reason      TEXT,
    prev_job_key     TEXT,
    last_error_class TEXT,
    last_category    TEXT,
    last_error       TEXT,
    lease_recoveries INTEGER NOT NULL DEFAULT 0,
    result_id        INTEGER,
    shadow           INTEGER NOT NULL DEFAULT 0,
    first_run_id     TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    UNIQUE (tenant, job_key)
);
CREATE INDEX jobs_claim ON jobs (state, tenant, id);
CREATE INDEX jobs_path ON jobs (tenant, source_path);

CREATE TABLE sources (
    tenant        TEXT NOT NULL,
    source_system TEXT NOT NULL,
    path          TEXT NOT NULL,
    digest        TEXT NOT NULL,
    job_key       TEXT NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (tenant, source_system, path)
);

CREATE TABLE attempts (
    id            INTEGER PRIMARY KEY,
    job_id        INTEGER NOT NULL REFERENCES jobs (id),
    tenant        TEXT NOT NULL,
    attempt_no    INTEGER NOT NULL,
    run_id        TEXT NOT NULL,
    owner         TEXT NOT NULL,
    lease_token   INTEGER NOT NULL,
    started_at    INTEGER NOT NULL,
    finished_at   INTEGER,
    outcome       TEXT NOT NULL DEFAULT '',
    error_class   TEXT NOT NULL DEFAULT '',
    category      TEXT NOT NULL DEFAULT '',
    message       TEXT NOT NULL DEFAULT '',
    provider      TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    http_status   INTEGER NOT NULL DEFAULT 0,
    request_id    TEXT NOT NULL DEFAULT '',
    duration_ms   INTEGER NOT NULL DEFAULT 0,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    next_delay_ms INTEGER NOT NULL DEFAULT 0,
    prompt_hash   TEXT NOT NULL DEFAULT '',
    output        BLOB,
    UNIQUE (job_id, attempt_no)
);
CREATE INDEX attempts_tenant ON attempts (tenant, started_at);

CREATE TABLE results (
    id             INTEGER PRIMARY KEY,
    tenant         TEXT NOT NULL,
    job_key        TEXT NOT NULL,
    job_id         INTEGER NOT NULL REFERENCES jobs (id),
    schema_version TEXT NOT NULL,
    result         TEXT NOT NULL,
    attempt_id     INTEGER NOT NULL,
    run_id         TEXT NOT NULL,
    shadow         INTEGER NOT NULL DEFAULT 0,
    committed_at   INTEGER NOT NULL,
    superseded_by  INTEGER,
    UNIQUE (tenant, job_key)
);

CREATE TABLE outbox (
    id           INTEGER PRIMARY KEY,
    tenant       TEXT NOT NULL,
    event_key    TEXT NOT NULL,
    job_key      TEXT NOT NULL,
    result_id    INTEGER NOT NULL REFERENCES results (id),
    action_id    TEXT NOT NULL,
    kind         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_try_at  INTEGER,
    last_error   TEXT,
    created_at   INTEGER NOT NULL,
    delivered_at INTEGER,
    UNIQUE (tenant, event_key)
);
CREATE INDEX outbox_pending ON outbox (state, next_try_at);
