-- Idempotency keys of create requests (Stripe's model): one row per credential scope and key,
-- holding the first response so a retry with the same key gets it back instead of a second create.
-- `scope` names the credential ('installation:…', 'apikey:…', 'account:…[:store:…]'), so two apps
-- sending the same key never meet. The client's key is stored only as its SHA-256 (`key_hash`),
-- and the response body is sealed under a key derived from SECRETS_KEY and the client's key: some
-- creates answer a secret that is shown once.
CREATE TABLE idempotency_keys (
  scope            text NOT NULL,
  key_hash         text NOT NULL,
  -- SHA-256 of method, route, path parameters, query and canonical JSON body.
  fingerprint      text NOT NULL,
  -- Fences a claim: only the request that claimed the row may complete or release it.
  claim_token      text NOT NULL,
  locked_at        timestamptz(3) NOT NULL,
  -- Null while the first request runs.
  response_status  integer,
  response_body    text,
  created_at       timestamptz(3) NOT NULL,
  PRIMARY KEY (scope, key_hash)
);
-- Pruning deletes rows older than 24 hours, oldest first, in small batches.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
