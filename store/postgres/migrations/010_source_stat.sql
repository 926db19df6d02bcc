-- The stat check of invx run: the file's size, modification time (ns) and
-- inode when its bytes were read, and the read options the digest depends
-- on (decoding, size cap), kept beside the digest they were read with. A
-- later run that finds the same four values does not read the file again
-- (invx run --rehash does). The inode is stored as its 64 bits, signed.
-- NULL for references recorded before, or for a held change (whose stat
-- does not belong to the recorded digest).
ALTER TABLE sources ADD COLUMN file_size BIGINT;
ALTER TABLE sources ADD COLUMN file_mtime_ns BIGINT;
ALTER TABLE sources ADD COLUMN file_inode BIGINT;
ALTER TABLE sources ADD COLUMN read_opts TEXT;
