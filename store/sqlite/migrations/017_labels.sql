-- Labels (issue 17, docs/storage.md): the source system (fs:<folder>) and
-- the read options of the stat check (encoding=...;max_bytes=...) are a
-- few distinct strings repeated on every jobs and sources row, about 30
-- bytes each. They are kept once here and named by id. The store adds a
-- label in the transaction that first names it and never changes or
-- deletes one (the foreign keys below refuse a delete).
CREATE TABLE labels (
    id    INTEGER PRIMARY KEY,
    label TEXT NOT NULL UNIQUE
);
INSERT INTO labels (label)
    SELECT source_system FROM jobs
    UNION SELECT source_system FROM sources
    UNION SELECT read_opts FROM sources WHERE read_opts IS NOT NULL;

-- NOT NULL in spirit: ALTER TABLE cannot add it, the store always writes it.
ALTER TABLE jobs ADD COLUMN system_id INTEGER REFERENCES labels (id);
UPDATE jobs SET system_id = (SELECT l.id FROM labels l WHERE l.label = jobs.source_system);
ALTER TABLE jobs DROP COLUMN source_system;

-- sources is rebuilt: the source system is part of its primary key. Still
-- WITHOUT ROWID (migration 015). A row whose label is missing fails the
-- NOT NULL: the migration stops rather than lose it.
CREATE TABLE sources_017 (
    tenant        TEXT NOT NULL,
    system_id     INTEGER NOT NULL REFERENCES labels (id),
    path          TEXT NOT NULL,
    digest        BLOB NOT NULL,
    job_id        INTEGER NOT NULL REFERENCES jobs (id),
    updated_at    INTEGER NOT NULL,
    file_size     INTEGER,
    file_mtime_ns INTEGER,
    file_inode    INTEGER,
    read_opts_id  INTEGER REFERENCES labels (id),
    PRIMARY KEY (tenant, system_id, path)
) WITHOUT ROWID;
INSERT INTO sources_017 (tenant, system_id, path, digest, job_id, updated_at, file_size, file_mtime_ns, file_inode, read_opts_id)
SELECT s.tenant, (SELECT l.id FROM labels l WHERE l.label = s.source_system), s.path, s.digest, s.job_id, s.updated_at,
    s.file_size, s.file_mtime_ns, s.file_inode, (SELECT l.id FROM labels l WHERE l.label = s.read_opts)
FROM sources s;
DROP TABLE sources;
ALTER TABLE sources_017 RENAME TO sources;
