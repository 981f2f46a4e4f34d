-- Grant packages (WIRE-NOTES §4): one OAuth authorization with several authorization_details
-- becomes one consent request per detail, linked by package_id, decided on one page and
-- exchanged with one code for one token over all the approved children.
ALTER TABLE grant_requests ADD COLUMN package_id TEXT;
ALTER TABLE grant_requests ADD COLUMN package_index INTEGER;
CREATE INDEX grant_requests_by_package ON grant_requests (package_id, package_index)
  WHERE package_id IS NOT NULL;
