"""What a person sees: leaderboard tables, replays told deal by deal, the human seat, progress."""
