-- Two partial indexes for reads that every run makes at its start and end,
-- which read every row they pass over (issue 17):
--
-- A run's finish counts the open review reasons of the documents it saw,
-- in job key order (jobs.countOpenReview). Through review_reasons_job each
-- open reason cost a probe of the table for its reason: at 100k documents
-- with 30k open, 0.17 CPU s of a 1.7 s no-op rerun. This index holds what
-- the count reads, in its order, and only open reasons.
CREATE INDEX review_reasons_open ON review_reasons (tenant, job_key, reason) WHERE state = 'open';

-- Work's start lists the owners of outbox leases still running
-- (jobs.reapOutbox). Through outbox_pending it read every pending event's
-- row to find the few with a lease: 100k undelivered events, 33 ms a run.
-- An event has a lease owner only while a sender holds or held it.
CREATE INDEX outbox_leased ON outbox (state, lease_owner) WHERE lease_owner IS NOT NULL;
