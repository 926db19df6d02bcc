-- Lease recoveries get their own budget (--max-recoveries), apart from the
-- provider attempts of --max-attempts: recovery_base is lease_recoveries
-- when a person last requeued the job, as budget_base is for attempts.
ALTER TABLE jobs ADD COLUMN recovery_base INTEGER NOT NULL DEFAULT 0;
