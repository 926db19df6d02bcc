-- An outbox payload that embeds its result verbatim (invoice.committed
-- carries the whole result) is stored without it: payload_zst holds the
-- payload with the result's bytes cut out at byte offset payload_result_at,
-- and every reader puts the result row's bytes back there (docs/storage.md).
-- Results are never rewritten (a correction is a revision row), so the
-- payload read back is byte for byte the one written. NULL: the payload is
-- whole, as every row before 013.
ALTER TABLE outbox ADD COLUMN payload_result_at INTEGER;
