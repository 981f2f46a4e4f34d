-- The audit appends 0008 replaced: 0004's ppx_append_audit (and the clocked expansion it ran twice)
-- and 0007's durable procedure around it. Nothing calls them since 0008 (instances from before 0007
-- must be stopped for this upgrade: docs/deploy.md), so they go rather than linger as dead code.
DROP PROCEDURE ppx_append_audit_durably(integer, text, json);
DROP FUNCTION ppx_append_audit(integer, text, json);
DROP FUNCTION ppx_audit_clocked(json, bigint);
