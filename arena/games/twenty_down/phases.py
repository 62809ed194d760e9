"""The phases of a Twenty Down deal and the words of its stay-or-drop decision (TD-7, brostedt)."""

STAY = "stay"
DROP = "drop"

TRUMP, EXCHANGE, DECIDE, PLAY, OVER = range(5)
PHASE_NAMES = ("trump", "exchange", "stay-or-drop", "play", "over")

__all__ = ["DECIDE", "DROP", "EXCHANGE", "OVER", "PHASE_NAMES", "PLAY", "STAY", "TRUMP"]
