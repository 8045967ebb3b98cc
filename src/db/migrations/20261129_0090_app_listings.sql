-- The app directory (issue 32, part 4): what a developer tells merchants about an app, and whether
-- merchants can find it. One listing per app, keyed by the app: apps belong to developer accounts,
-- not to stores, so no store_id leads this table. The app's name and the scopes it may ask for are
-- the app's own (apps.name, apps.scopes), read from the app at every view and never copied here:
-- the directory can then never show other words or fewer scopes than the consent page.
CREATE TABLE app_listings (
  app_id         text PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
  status         text NOT NULL CHECK (status IN ('draft', 'published')),
  tagline        text NOT NULL,
  description    text NOT NULL,
  app_url        text NOT NULL,
  support_email  text NOT NULL,
  icon_color     text NOT NULL CHECK (icon_color IN ('green', 'blue', 'violet', 'rose', 'orange', 'teal', 'slate', 'indigo')),
  published_at   timestamptz(3),
  created_at     timestamptz(3) NOT NULL,
  updated_at     timestamptz(3) NOT NULL,
  CHECK (char_length(tagline) <= 120 AND char_length(description) <= 2000),
  CHECK ((status = 'published') = (published_at IS NOT NULL))
);

COMMENT ON COLUMN app_listings.status IS 'draft: seen only by the app''s developer; published: in every store''s app directory.';
COMMENT ON COLUMN app_listings.app_url IS 'Where the Install and Open app buttons send the merchant, with ?store=<slug>: the app starts the OAuth authorization from there, with its own state and PKCE.';
COMMENT ON COLUMN app_listings.icon_color IS 'The colour of the app''s monogram icon (its initials), from the contract''s palette: no image is uploaded or fetched.';
COMMENT ON COLUMN app_listings.published_at IS 'When it was last published; null while a draft.';
