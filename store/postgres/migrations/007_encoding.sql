-- The decoding a job's text was read with (utf-8, utf-16le, windows-1252,
-- ...; invx run --encoding), shown by invx show. NULL for jobs enqueued
-- before it was recorded.
ALTER TABLE jobs ADD COLUMN source_encoding TEXT;
