-- Zstd dictionaries (issue 17, docs/storage.md). As
-- store/sqlite/migrations/014_zstd_dicts.sql: one dictionary per kind of
-- compressed value, id = the zstd dictionary ID (content-derived) that
-- every frame using it carries; rows are immutable, enforced by a trigger
-- (TRUNCATE too).
CREATE TABLE zstd_dicts (
    id         BIGINT PRIMARY KEY,
    kind       TEXT NOT NULL,
    generation INTEGER NOT NULL,
    dict       BYTEA NOT NULL,
    samples    INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (kind, generation)
);
CREATE FUNCTION zstd_dicts_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'zstd_dicts: a dictionary is never changed or deleted';
END
$$;
CREATE TRIGGER zstd_dicts_no_change BEFORE UPDATE OR DELETE ON zstd_dicts
    FOR EACH ROW EXECUTE FUNCTION zstd_dicts_immutable();
CREATE TRIGGER zstd_dicts_no_truncate BEFORE TRUNCATE ON zstd_dicts
    FOR EACH STATEMENT EXECUTE FUNCTION zstd_dicts_immutable();
