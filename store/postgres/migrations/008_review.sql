-- Review of committed results (issue 14, DESIGN.md "Review policy"), as
-- store/sqlite/migrations/008_review.sql in PostgreSQL types.
--
-- A result's identity, for duplicate detection at commit: the comparison
-- keys of package review (NULL: unknown, never matched), its total and issue
-- date (a duplicate's detail says whether they agree) and the digest of its
-- text (the same text under another schema version is not a duplicate).
-- revision is the number of corrections (result_revisions); 0 is the result
-- as committed, which stays in result.
ALTER TABLE results ADD COLUMN supplier_key TEXT;
ALTER TABLE results ADD COLUMN supplier_vat_key TEXT;
ALTER TABLE results ADD COLUMN number_key TEXT;
ALTER TABLE results ADD COLUMN doc_total_minor BIGINT;
ALTER TABLE results ADD COLUMN doc_issue_date TEXT;
ALTER TABLE results ADD COLUMN source_digest TEXT;
ALTER TABLE results ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
-- The duplicate lookup: same tenant and invoice number among the live
-- results; the supplier is compared on the few rows it finds.
CREATE INDEX results_identity ON results (tenant, number_key)
    WHERE superseded_by IS NULL AND number_key IS NOT NULL;

-- Why a result needs a person; open until accepted, dismissed or corrected.
-- detail is JSON (missing fields, the other job of a duplicate, arithmetic
-- messages), never invoice text.
CREATE TABLE review_reasons (
    id        BIGSERIAL PRIMARY KEY,
    tenant    TEXT NOT NULL,
    job_key   TEXT COLLATE "C" NOT NULL,
    result_id BIGINT NOT NULL REFERENCES results (id),
    reason    TEXT NOT NULL,
    detail    TEXT NOT NULL DEFAULT '{}',
    state     TEXT NOT NULL DEFAULT 'open',
    opened_at BIGINT NOT NULL,
    closed_at BIGINT,
    actor     TEXT,
    note      TEXT
);
CREATE INDEX review_reasons_state ON review_reasons (tenant, state, reason);
CREATE INDEX review_reasons_job ON review_reasons (tenant, job_key, state);

-- Corrections: revision 1, 2, ... of a result, with who, why and the old
-- and new values (changes: JSON [{field, old, new}]).
CREATE TABLE result_revisions (
    id         BIGSERIAL PRIMARY KEY,
    tenant     TEXT NOT NULL,
    job_key    TEXT COLLATE "C" NOT NULL,
    result_id  BIGINT NOT NULL REFERENCES results (id),
    revision   INTEGER NOT NULL,
    result     TEXT NOT NULL,
    actor      TEXT NOT NULL DEFAULT '',
    reason     TEXT NOT NULL DEFAULT '',
    changes    TEXT NOT NULL DEFAULT '[]',
    created_at BIGINT NOT NULL,
    UNIQUE (tenant, job_key, revision)
);

-- A tenant's review policy: the fields required for payment (JSON array).
CREATE TABLE review_policy (
    tenant     TEXT PRIMARY KEY,
    require    TEXT NOT NULL DEFAULT '[]',
    updated_at BIGINT NOT NULL,
    actor      TEXT NOT NULL DEFAULT ''
);

-- Outbox states now include held (an open review reason) and cancelled (a
-- dismissed result's held events): the state column is free text, and
-- ClaimOutbox takes pending events only.
