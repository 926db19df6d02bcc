-- Operator surface: fresh attempt budgets for retried jobs, dismissal
-- reasons, leases on outbox events for delivery; indexes for the operator
-- listings and for fair claims (each tenant's newest attempt).
ALTER TABLE jobs ADD COLUMN budget_base INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN dismiss_reason TEXT;
ALTER TABLE outbox ADD COLUMN lease_owner TEXT;
ALTER TABLE outbox ADD COLUMN lease_token BIGINT NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN lease_expires_at BIGINT;
CREATE INDEX jobs_updated ON jobs (tenant, updated_at);
CREATE INDEX results_committed ON results (tenant, committed_at);
CREATE INDEX outbox_tenant ON outbox (tenant, state, id);
CREATE INDEX attempts_tenant_id ON attempts (tenant, id);
