"""Finding bots and games: bot files in ``bots/``, installed entry points, the bundled games."""
