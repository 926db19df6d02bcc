-- Labels (issue 17, docs/storage.md): the source system (fs:<folder>) and
-- the read options of the stat check (encoding=...;max_bytes=...) are a
-- few distinct strings repeated on every jobs and sources row, about 30
-- bytes each. They are kept once here and named by id. The store adds a
-- label in the transaction that first names it and never changes or
-- deletes one (the foreign keys below refuse a delete).
CREATE TABLE labels (
    id    BIGSERIAL PRIMARY KEY,
    label TEXT NOT NULL UNIQUE
);
INSERT INTO labels (label)
    SELECT source_system FROM jobs
    UNION SELECT source_system FROM sources
    UNION SELECT read_opts FROM sources WHERE read_opts IS NOT NULL;

ALTER TABLE jobs ADD COLUMN system_id BIGINT REFERENCES labels (id);
UPDATE jobs j SET system_id = l.id FROM labels l WHERE l.label = j.source_system;
ALTER TABLE jobs ALTER COLUMN system_id SET NOT NULL, DROP COLUMN source_system;

-- The source system is part of sources' primary key: the key is made
-- again on the id. A row whose label is missing fails the NOT NULL: the
-- migration stops rather than lose it.
ALTER TABLE sources ADD COLUMN system_id BIGINT REFERENCES labels (id),
    ADD COLUMN read_opts_id BIGINT REFERENCES labels (id);
UPDATE sources s SET system_id = (SELECT l.id FROM labels l WHERE l.label = s.source_system),
    read_opts_id = (SELECT l.id FROM labels l WHERE l.label = s.read_opts);
ALTER TABLE sources DROP CONSTRAINT sources_pkey,
    ALTER COLUMN system_id SET NOT NULL,
    DROP COLUMN source_system,
    DROP COLUMN read_opts,
    ADD PRIMARY KEY (tenant, system_id, path);
