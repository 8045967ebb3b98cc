-- Issue 29, part 3: a call is counted for what it used that is deprecated: its version, its
-- operation, or a field of its body (`field:<name>`).
ALTER TABLE deprecated_api_calls
  ADD COLUMN usage text NOT NULL DEFAULT 'version'
  CHECK (usage = 'version' OR usage = 'operation' OR usage LIKE 'field:_%');
ALTER TABLE deprecated_api_calls DROP CONSTRAINT deprecated_api_calls_pkey;
ALTER TABLE deprecated_api_calls ADD PRIMARY KEY (app_id, day, api_version, operation_id, usage);
COMMENT ON TABLE deprecated_api_calls IS 'Calls that used something deprecated (an API version, an operation, a request field), per app, day, version, operation and usage (issue 29).';
