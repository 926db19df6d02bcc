-- The path as the user named it at enqueue (the walked root as given joined
-- with the relative path), so show and export tell two nightly folders
-- apart. NULL for jobs enqueued before. The source identity (sources: tenant,
-- source_system, relative path) is unchanged. COLLATE "C" compares bytewise,
-- so a completion prefix is a range of the index whatever the locale.
ALTER TABLE jobs ADD COLUMN display_path TEXT COLLATE "C";
CREATE INDEX jobs_display_path ON jobs (tenant, display_path);
