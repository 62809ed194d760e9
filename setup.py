"""The optional C extensions; everything else about the package is in pyproject.toml.

``arena.execution.process._wire_c`` is the diff of observations sent to bot processes, equal
object for object to the pure-Python code in arena/execution/process/wire.py, which runs instead
wherever the extension is missing. ``arena.envs._encode_c`` writes the PettingZoo environment's
observations, the same values as its Python code (arena/envs/observations.py).
``optional=True``: a machine without a C compiler (or a failed build) still installs arena.
It is declared here rather than in pyproject.toml's ``[tool.setuptools] ext-modules``, which
setuptools supports only from 74.1 and marks experimental; this works with every setuptools the
build requires.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "arena.execution.process._wire_c",
            sources=["arena/execution/process/_wire_c.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "arena.envs._encode_c",
            sources=["arena/envs/_encode_c.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
