-- Issue 18, item 5: an API key created with an expiry past year 9999 in UTC (for example
-- `9999-12-31T23:59:59-23:59`) was stored by PostgreSQL, but node-postgres reads such a date back as
-- an invalid Date, so the store's key list answered 500 from then on. The API now refuses those
-- dates; this brings back the stores that already hold one, at the latest instant the API accepts
-- (the key still practically never expires).
UPDATE api_keys
   SET expires_at = '9999-12-31 23:59:59.999+00'
 WHERE expires_at > '9999-12-31 23:59:59.999+00';
