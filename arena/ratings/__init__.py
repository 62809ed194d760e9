"""Ratings: TrueSkill, updated game by game in schedule order."""
