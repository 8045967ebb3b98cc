-- A refresh may ask for fewer scopes than its grant holds (RFC 6749 section 6): the access token
-- it issues then carries that narrower set. NULL means the grant's scopes, as every token issued
-- before this column did.
ALTER TABLE access_tokens ADD COLUMN scopes jsonb;
