-- Only a pending delivery holds a lease token. Every writer keeps it so already (a claim takes a
-- pending row; a completion, a release, a cancellation or a disable clears the token as it moves
-- the row on), and the worker's completion and release are fenced by the token alone
-- (delivery-repo.ts): a `status = 'pending'` beside it let the planner read every pending delivery
-- through their partial index for each batch when the statistics predated a backlog. This makes
-- the rule the database's. NOT VALID: rows written before are not scanned at the upgrade (a large
-- table would be read whole); nothing ever left a token on a finished row, and every write from
-- now on is checked.
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_lease_only_pending CHECK (lease_token IS NULL OR status = 'pending') NOT VALID;
