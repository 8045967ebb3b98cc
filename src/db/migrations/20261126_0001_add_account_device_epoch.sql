-- Device cookies (mp_device) are signed over their account's device epoch. Changing the password
-- or signing out everywhere adds one to it, so every device cookie issued before stops being
-- trusted at sign-in (docs/decisions.md, "Guessing throttles"). A constant default: existing rows
-- get 0 without a rewrite of the table, and cookies issued before this migration (epoch 0) stay
-- trusted until the account's first such change.
ALTER TABLE accounts ADD COLUMN device_epoch integer NOT NULL DEFAULT 0;
