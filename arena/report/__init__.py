"""``arena report``: one self-contained HTML file of the results database — leaderboards, ratings
over time, head to head, faults, and a replay viewer — that works offline.

``gather`` reads the store into plain data, ``replays`` turns stored games into the frames the
viewer steps through (drawn by each game's ``Game.table_drawing``), ``render`` fills the template
with the data and inlines every script and style.
"""
