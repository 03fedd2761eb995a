-- The baseline's one table: a row per /insert, read back by /select.
CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL UNIQUE,
  amount INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
);
