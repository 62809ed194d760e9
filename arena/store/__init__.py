"""The results database: one SQLite file (``leaderboard/arena.db`` by default)."""
