"""``arena bench``: decisions and games per second of the bare engines and of whole runs."""
