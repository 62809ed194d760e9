"""A tournament: the plan (options, file, resumed run), its schedule, and the run."""
