"""``--isolation process``: every bot in its own sandboxed process; what crosses the pipes."""
