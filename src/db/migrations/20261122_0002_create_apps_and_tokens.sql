-- Third-party apps, their installations in stores, authorization codes and token families.
-- Credentials (client secrets, codes, tokens) are stored only as SHA-256 hashes: a dump of these
-- tables holds nothing usable.

CREATE TABLE apps (
  id                  text PRIMARY KEY,
  client_id           text NOT NULL UNIQUE,
  owner_account_id    text NOT NULL REFERENCES accounts (id),
  name                text NOT NULL,
  redirect_uris       jsonb NOT NULL,
  scopes              jsonb NOT NULL,
  client_secret_hash  text NOT NULL,
  secret_rotated_at   timestamptz(3),
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL
);
CREATE INDEX apps_owner_idx ON apps (owner_account_id, created_at, id);

-- One app in one store. Uninstalling ends the row; installing again starts a new one.
CREATE TABLE installations (
  store_id          text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id                text NOT NULL,
  app_id            text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  scopes            jsonb NOT NULL,
  status            text NOT NULL CHECK (status IN ('active', 'uninstalled')),
  installed_by      text REFERENCES accounts (id) ON DELETE SET NULL,
  created_at        timestamptz(3) NOT NULL,
  updated_at        timestamptz(3) NOT NULL,
  uninstalled_at    timestamptz(3),
  PRIMARY KEY (store_id, id)
);
CREATE UNIQUE INDEX installations_active_key ON installations (store_id, app_id) WHERE status = 'active';
CREATE INDEX installations_app_idx ON installations (app_id);
CREATE INDEX installations_installed_by_idx ON installations (installed_by);

CREATE TABLE authorization_codes (
  code_hash        text PRIMARY KEY,
  store_id         text NOT NULL,
  installation_id  text NOT NULL,
  app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  redirect_uri     text NOT NULL,
  scopes           jsonb NOT NULL,
  code_challenge   text,
  created_at       timestamptz(3) NOT NULL,
  expires_at       timestamptz(3) NOT NULL,
  redeemed_at      timestamptz(3),
  FOREIGN KEY (store_id, installation_id) REFERENCES installations (store_id, id) ON DELETE CASCADE
);
CREATE INDEX authorization_codes_installation_idx ON authorization_codes (store_id, installation_id);
CREATE INDEX authorization_codes_app_idx ON authorization_codes (app_id);

-- A grant is one token family: born from one authorization code, continued by each refresh.
-- Revoking it kills every access and refresh token of the family at once.
CREATE TABLE token_grants (
  store_id         text NOT NULL,
  id               text NOT NULL,
  installation_id  text NOT NULL,
  app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  scopes           jsonb NOT NULL,
  code_hash        text NOT NULL,
  created_at       timestamptz(3) NOT NULL,
  revoked_at       timestamptz(3),
  revoked_reason   text,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, installation_id) REFERENCES installations (store_id, id) ON DELETE CASCADE
);
CREATE INDEX token_grants_installation_idx ON token_grants (store_id, installation_id);
CREATE INDEX token_grants_code_idx ON token_grants (code_hash);
CREATE INDEX token_grants_app_idx ON token_grants (app_id);

-- Tokens are found by hash alone (the bearer does not say its store), so they key on the hash.
CREATE TABLE access_tokens (
  token_hash     text PRIMARY KEY,
  store_id       text NOT NULL,
  grant_id       text NOT NULL,
  created_at     timestamptz(3) NOT NULL,
  expires_at     timestamptz(3) NOT NULL,
  first_used_at  timestamptz(3),
  revoked_at     timestamptz(3),
  FOREIGN KEY (store_id, grant_id) REFERENCES token_grants (store_id, id) ON DELETE CASCADE
);
CREATE INDEX access_tokens_grant_idx ON access_tokens (store_id, grant_id);

CREATE TABLE refresh_tokens (
  token_hash       text PRIMARY KEY,
  store_id         text NOT NULL,
  grant_id         text NOT NULL,
  created_at       timestamptz(3) NOT NULL,
  expires_at       timestamptz(3) NOT NULL,
  used_at          timestamptz(3),
  -- The pair issued when this token was used, for an idempotent retry of a lost response:
  -- hashes to check the pair is still unused, and the pair itself encrypted under a key derived
  -- from this refresh token and the request's Idempotency-Key (neither is stored).
  successor_access_hash   text,
  successor_refresh_hash  text,
  retry_idempotency_hash  text,
  retry_ciphertext        text,
  FOREIGN KEY (store_id, grant_id) REFERENCES token_grants (store_id, id) ON DELETE CASCADE
);
CREATE INDEX refresh_tokens_grant_idx ON refresh_tokens (store_id, grant_id);
