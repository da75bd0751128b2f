"""Where the shared corpus and evaluation sets are: ``../shared`` beside the checkout,
or the folder named by ``KGSITE_SHARED_DIR`` (``python -m benchmarks --shared DIR``).

A benchmark that needs a file from there calls :func:`shared_path`; when the folder or
the file is absent it raises :class:`SharedMissing`, which the runner shows as one
SKIPPED row naming what is missing instead of a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = "KGSITE_SHARED_DIR"


class SharedMissing(Exception):
    """The shared material a benchmark needs is not on this machine."""


def shared_dir() -> Path:
    configured = os.environ.get(ENV)
    return Path(configured) if configured else ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    path = shared_dir().joinpath(*parts)
    if not path.exists():
        raise SharedMissing(f"{path} not found (set {ENV} or pass --shared DIR)")
    return path
