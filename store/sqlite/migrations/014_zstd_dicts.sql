-- Zstd dictionaries (issue 17, docs/storage.md). A database trains one per
-- kind of compressed value ('text': jobs.source_zst, 'result':
-- results.result_zst, 'event': outbox.payload_zst) from the first values it
-- writes; later frames of the kind are compressed with it and carry its id
-- in their zstd frame header. id is that zstd dictionary ID, derived from
-- the dictionary's content (store/internal/jobs/dict.go). Frames written
-- before a dictionary existed (and every row before 014) use none and read
-- as before.
--
-- A row is immutable: every frame that names its id needs exactly these
-- bytes for ever, so the triggers refuse to change or delete one. A new
-- dictionary of a kind would be a new row (the next generation); two
-- processes that trained at once keep the first stored, by
-- UNIQUE (kind, generation).
CREATE TABLE zstd_dicts (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,
    generation INTEGER NOT NULL,
    dict       BLOB NOT NULL,
    samples    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (kind, generation)
);
CREATE TRIGGER zstd_dicts_no_update BEFORE UPDATE ON zstd_dicts
BEGIN
    SELECT RAISE(ABORT, 'zstd_dicts: a dictionary is never changed');
END;
CREATE TRIGGER zstd_dicts_no_delete BEFORE DELETE ON zstd_dicts
BEGIN
    SELECT RAISE(ABORT, 'zstd_dicts: a dictionary is never deleted');
END;
