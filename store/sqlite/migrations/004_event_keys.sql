-- Outbox event keys become unambiguous (store.EventKey): an action item is
-- <job_key>:action:<action_id>, the commit event stays
-- <job_key>:invoice.committed. Under the old <job_key>:<action_id> an action
-- whose id was "invoice.committed" took the commit event's key and the
-- commit event was dropped.
--
-- Two steps, because an action id may itself start with "action:": a row's
-- new key could equal another row's old key while the update is half done.
UPDATE outbox SET event_key = 'migrating:' || id WHERE kind <> 'invoice.committed';
UPDATE outbox SET event_key = job_key || ':action:' || action_id WHERE event_key LIKE 'migrating:%';

-- Publish the invoice.committed events that collision dropped, as the
-- runner would have (same payload fields), pending since their commit. A
-- result superseded since then stays without one: its successor's event
-- was published.
INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at)
SELECT r.tenant, r.job_key || ':invoice.committed', r.job_key, r.id, 'invoice.committed', 'invoice.committed',
    json_object('event', 'invoice.committed', 'job_key', r.job_key, 'result', json(r.result),
        'schema_version', r.schema_version, 'source_path', j.source_path, 'tenant', r.tenant),
    r.committed_at
FROM outbox o
JOIN results r ON r.id = o.result_id
JOIN jobs j ON j.id = r.job_id
WHERE o.event_key = o.job_key || ':action:invoice.committed'
    AND r.shadow = 0 AND r.superseded_by IS NULL
    AND NOT EXISTS (SELECT 1 FROM outbox c WHERE c.tenant = r.tenant AND c.event_key = r.job_key || ':invoice.committed');
