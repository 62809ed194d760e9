"""The optional C extensions; everything else about the package is in pyproject.toml.

``arena.ratings._trueskill_c`` is TrueSkill's message passing in C, equal to the bit to the pure-Python
code in arena/ratings/fast_trueskill.py, which runs instead wherever the extension is missing.
``arena.execution.process._wire_c`` is the diff of observations sent to bot processes (arena/execution/process/wire.py), likewise.
``optional=True``: a machine without a C compiler (or a failed build) still installs arena.
It is declared here rather than in pyproject.toml's ``[tool.setuptools] ext-modules``, which
setuptools supports only from 74.1 and marks experimental; this works with every setuptools the
build requires.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "arena.ratings._trueskill_c",
            sources=["arena/ratings/_trueskill_c.c"],
            # No fused multiply-add and no fast-math: the C code must round exactly as Python's
            # separate float operations do.
            extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"],
            optional=True,
        ),
        Extension(
            "arena.execution.process._wire_c",
            sources=["arena/execution/process/_wire_c.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
