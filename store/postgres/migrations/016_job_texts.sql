-- A job's compressed source text moves out of the jobs row into a table of
-- its own (issue 17, docs/storage.md). A claim and a commit rewrite the jobs
-- row (lease owner, expiry, state): a row packed tight at insert then grew
-- and split its page, and with the text in it a page held nine rows, so
-- every page split once (the table was 18 % empty). Texts are written once
-- and never updated, so their pages stay full; the jobs rows are a third
-- of the size. job_id is the jobs row's id: a lease reads its
-- text with one probe. A prune deletes the row. Rows before 012 keep their
-- TEXT column in jobs (source_text) and are read from it as before.
CREATE TABLE job_texts (
    job_id BIGINT PRIMARY KEY REFERENCES jobs (id),
    zst    BYTEA NOT NULL
);
INSERT INTO job_texts (job_id, zst) SELECT id, source_zst FROM jobs WHERE source_zst IS NOT NULL;
UPDATE jobs SET source_zst = NULL WHERE source_zst IS NOT NULL;
