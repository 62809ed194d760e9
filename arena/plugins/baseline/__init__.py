"""The bots that ship with arena, registered through the hook like any plugin's.

``random`` and the two heuristics are fielded by every run; the search bots are known by name
everywhere but fielded only when named (``by_default = False``): they take up to a fifth of a
second a move. Each module is also a plain bot file, a model for your own.
"""
