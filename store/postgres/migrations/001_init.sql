-- The schema of store/sqlite/migrations/001_init.sql in PostgreSQL types: the
-- same tables and columns, so both drivers mean the same thing by each.
-- Times are Unix milliseconds (UTC) in BIGINT so both drivers compare them
-- the same way.

CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    tenant         TEXT NOT NULL,
    command        TEXT NOT NULL,
    owner          TEXT NOT NULL DEFAULT '',
    provider       TEXT NOT NULL DEFAULT '',
    schema_version TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT 'running',
    started_at     BIGINT NOT NULL,
    finished_at    BIGINT,
    -- JSON text; Stats reads it with summary::jsonb ->> 'field'.
    summary        TEXT
);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE jobs (
    id               BIGSERIAL PRIMARY KEY,
    tenant           TEXT NOT NULL,
    -- Job keys are hex: every job_key column compares bytewise (COLLATE
    -- "C"), so a key prefix is an index range (GetJob by 8+ hex digits)
    -- whatever the database's locale, and keys compare with each other.
    job_key          TEXT COLLATE "C" NOT NULL,
    transformation   TEXT NOT NULL,
    schema_version   TEXT NOT NULL,
    source_digest    TEXT NOT NULL,
    source_system    TEXT NOT NULL,
    source_path      TEXT NOT NULL,
    source_text      TEXT,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    lease_owner      TEXT,
    lease_token      BIGINT NOT NULL DEFAULT 0,
    lease_expires_at BIGINT,
    next_attempt_at  BIGINT,
    held_reason      TEXT,
    prev_job_key     TEXT COLLATE "C",
    last_error_class TEXT,
    last_category    TEXT,
    last_error       TEXT,
    lease_recoveries INTEGER NOT NULL DEFAULT 0,
    result_id        BIGINT,
    shadow           BOOLEAN NOT NULL DEFAULT false,
    first_run_id     TEXT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    UNIQUE (tenant, job_key)
);
CREATE INDEX jobs_claim ON jobs (state, tenant, id);
CREATE INDEX jobs_path ON jobs (tenant, source_path);

CREATE TABLE sources (
    tenant        TEXT NOT NULL,
    source_system TEXT NOT NULL,
    path          TEXT NOT NULL,
    digest        TEXT NOT NULL,
    job_key       TEXT COLLATE "C" NOT NULL,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (tenant, source_system, path)
);

CREATE TABLE attempts (
    id            BIGSERIAL PRIMARY KEY,
    job_id        BIGINT NOT NULL REFERENCES jobs (id),
    tenant        TEXT NOT NULL,
    attempt_no    INTEGER NOT NULL,
    run_id        TEXT NOT NULL,
    owner         TEXT NOT NULL,
    lease_token   BIGINT NOT NULL,
    started_at    BIGINT NOT NULL,
    finished_at   BIGINT,
    outcome       TEXT NOT NULL DEFAULT '',
    error_class   TEXT NOT NULL DEFAULT '',
    category      TEXT NOT NULL DEFAULT '',
    message       TEXT NOT NULL DEFAULT '',
    provider      TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    http_status   INTEGER NOT NULL DEFAULT 0,
    request_id    TEXT NOT NULL DEFAULT '',
    duration_ms   BIGINT NOT NULL DEFAULT 0,
    input_tokens  BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    next_delay_ms BIGINT NOT NULL DEFAULT 0,
    prompt_hash   TEXT NOT NULL DEFAULT '',
    output        BYTEA,
    UNIQUE (job_id, attempt_no)
);
CREATE INDEX attempts_tenant ON attempts (tenant, started_at);

CREATE TABLE results (
    id             BIGSERIAL PRIMARY KEY,
    tenant         TEXT NOT NULL,
    job_key        TEXT COLLATE "C" NOT NULL,
    job_id         BIGINT NOT NULL REFERENCES jobs (id),
    schema_version TEXT NOT NULL,
    result         TEXT NOT NULL,
    attempt_id     BIGINT NOT NULL,
    run_id         TEXT NOT NULL,
    shadow         BOOLEAN NOT NULL DEFAULT false,
    committed_at   BIGINT NOT NULL,
    superseded_by  BIGINT,
    UNIQUE (tenant, job_key)
);

CREATE TABLE outbox (
    id           BIGSERIAL PRIMARY KEY,
    tenant       TEXT NOT NULL,
    event_key    TEXT NOT NULL,
    job_key      TEXT COLLATE "C" NOT NULL,
    result_id    BIGINT NOT NULL REFERENCES results (id),
    action_id    TEXT NOT NULL,
    kind         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_try_at  BIGINT,
    last_error   TEXT,
    created_at   BIGINT NOT NULL,
    delivered_at BIGINT,
    UNIQUE (tenant, event_key)
);
CREATE INDEX outbox_pending ON outbox (state, next_try_at);
