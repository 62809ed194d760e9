"""``--backend ray``: the games of a run played by Ray workers anywhere on a cluster.

Ray is an optional extra (``arena[ray]``), imported only when a run asks for it
(``connect.import_ray``). ``backend.RayBackend`` is the parent's side: it sends chunks of the
schedule as Ray tasks and hands the outcomes back in schedule order; ``staging`` puts the bot files
in the folder Ray ships to every node; ``node`` is what a Ray worker runs: the local game workers
(``execution.workers``, ``execution.process``) on a chunk.
"""
