-- Consent retention (operations/consent-retention.ts, issue 22 items 10 and 12): expired consent
-- requests are removed oldest first, and a self-registered client is removed once no grant and no
-- consent request names it. Without these indexes each hourly run would read the whole table.
CREATE INDEX grant_requests_by_expiry ON grant_requests (expires_at);
CREATE INDEX grant_requests_by_client ON grant_requests (client_id);
