-- Indexes the retention sweep needs: each finds its oldest rows past the cut-off in index order
-- and deletes them in small batches, so the cost of one batch does not grow with the table.
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (completed_at) WHERE status <> 'pending';
CREATE INDEX events_dispatched_idx ON events (dispatched_at) WHERE dispatched_at IS NOT NULL;
CREATE INDEX authorization_codes_expires_idx ON authorization_codes (expires_at);
CREATE INDEX access_tokens_expires_idx ON access_tokens (expires_at);
CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at);
CREATE INDEX token_grants_revoked_idx ON token_grants (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX token_grants_created_idx ON token_grants (created_at);
