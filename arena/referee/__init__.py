"""The referee: plays one game between bots, and nothing a bot does can stop it."""
