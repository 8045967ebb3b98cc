-- Developer key pairs: a public key id and a secret stored only as its SHA-256 hash.
CREATE TABLE api_keys (
  store_id      text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id            text NOT NULL,
  name          text NOT NULL,
  secret_hash   text NOT NULL,
  scopes        jsonb NOT NULL,
  created_by    text REFERENCES accounts (id) ON DELETE SET NULL,
  created_at    timestamptz(3) NOT NULL,
  last_used_at  timestamptz(3),
  expires_at    timestamptz(3),
  revoked_at    timestamptz(3),
  PRIMARY KEY (store_id, id)
);
-- The key id arrives alone in a header, so it is unique across stores and looked up directly.
CREATE UNIQUE INDEX api_keys_id_key ON api_keys (id);
CREATE INDEX api_keys_created_idx ON api_keys (store_id, created_at, id);
CREATE INDEX api_keys_created_by_idx ON api_keys (created_by);
