"""How scheduled games get played: the game workers, and bots in processes of their own."""
