-- Compressed payloads (issue 17, docs/storage.md): rows written from now on
-- keep a job's source text, a result's JSON and an outbox event's payload
-- zstd-compressed in these columns, and leave the TEXT columns empty
-- (source_text NULL; result and payload '', being NOT NULL). Rows written
-- before keep their TEXT columns and are read from them: no data is
-- migrated. The text stays in the jobs row: compressed it is a third of its
-- size, and a separate table would cost a key and an index per job.
ALTER TABLE jobs ADD COLUMN source_zst BYTEA;
ALTER TABLE results ADD COLUMN result_zst BYTEA;
ALTER TABLE outbox ADD COLUMN payload_zst BYTEA;
