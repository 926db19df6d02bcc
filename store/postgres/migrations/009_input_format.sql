-- What a job's document is and which provider it is routed to: the input
-- format detected at discovery (txt, ubl-invoice, ubl-creditnote, cii,
-- zugferd1; later pdf) and the route (einvoice for a structured e-invoice,
-- the text provider otherwise), shown by invx show. NULL for jobs enqueued
-- before they were recorded.
ALTER TABLE jobs ADD COLUMN source_format TEXT;
ALTER TABLE jobs ADD COLUMN route TEXT;
