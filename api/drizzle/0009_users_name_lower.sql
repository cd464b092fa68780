-- @mentions look people up by lower(name), never by reading the whole directory.
CREATE INDEX `users_name_lower` ON `users` (lower("name"));
