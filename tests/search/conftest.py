from __future__ import annotations

import pytest

from entities.search import service


@pytest.fixture
def vector_dir(tmp_path, settings):
    """A fresh vector directory and no in-memory indexes: a process starting cold."""
    settings.KGSITE_VECTOR_DIR = tmp_path / "vectors"
    settings.KGSITE_GAZETTEER_RECHECK_SECONDS = 0
    service.vector_indexes_reset()
    yield settings.KGSITE_VECTOR_DIR
    service.vector_indexes_reset()


def restart() -> None:
    """What a new process sees: only the files on disk."""
    service.vector_indexes_reset()
