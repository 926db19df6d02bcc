-- The stat check's status change time (docs/storage.md): a file rewritten
-- in place with its size and modification time kept (cp -p, touch -d,
-- rsync -t --inplace) has a new ctime, which nothing but the kernel sets.
-- Stats recorded before this have none: those files are read once more.
ALTER TABLE sources ADD COLUMN file_ctime_ns BIGINT;
