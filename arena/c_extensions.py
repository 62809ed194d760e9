"""The optional C extensions, built by setup.py where a C compiler is present.

Each repeats some hot Python code of arena in C, with the same results; the Python code runs
wherever its extension is missing, out of date, or switched off by an environment variable.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def load(name: str, transcription: int) -> ModuleType | None:
    """The extension ``name`` (a full module name); None where it is not built (there was no C
    compiler when arena was installed) or was built from older sources (its ``TRANSCRIPTION``
    differs: a checkout updated without reinstalling)."""
    try:
        module = importlib.import_module(name)
    except ImportError:
        return None
    return module if getattr(module, "TRANSCRIPTION", None) == transcription else None


def wanted(variable: str) -> bool:
    """Whether the environment lets arena use C: unless ``variable`` is set to anything but
    ``0`` or nothing."""
    return os.environ.get(variable, "0") in ("", "0")
