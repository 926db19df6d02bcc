-- Placeholder (branch h-clerk only): keeps the numbering dense so that
-- 006_display_path applies on this branch. Delete at merge; the lead
-- renumbers 006.
SELECT 1;
