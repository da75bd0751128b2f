"""The "episodes" kind of the vectors room: past work is found by meaning, like facts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

from kgsite.vectors.index import KINDS, Key, register_model_kind
from kgsite.vectors.service import vector_changed

from .. import hooks
from ..models import Fact
from .models import Episode


def episodes_kind_register() -> None:
    register_model_kind("episodes", Episode, "narrative")


# --- Facts in a multilingual space ("facts_xl") ------------------------------------------
# The default embedder (all-MiniLM-L6-v2) was trained on English: an Italian question and
# the English memory that answers it can score near 0. Recall also keeps the facts in the
# space of a multilingual encoder (KGSITE_RECALL_CROSSLINGUAL, Universal Sentence Encoder
# multilingual by default) as a further retrieval source and feature. The main index,
# and integrity's calibrated cut-offs on it, stay on the configured embedder.

CROSSLINGUAL_KIND = "facts_xl"
DEFAULT_CROSSLINGUAL = "kgsite.vectors.embedder.MultilingualEmbedder"
_encoders: dict[str, object] = {}


def crosslingual_path() -> str:
    """The multilingual encoder's dotted path, or "" when the source is switched off."""
    return str(getattr(settings, "KGSITE_RECALL_CROSSLINGUAL", "") or "")


def crosslingual_encoder():
    path = crosslingual_path() or DEFAULT_CROSSLINGUAL
    encoder = _encoders.get(path)
    if encoder is None:
        encoder = _encoders[path] = import_string(path)()
    return encoder


def _xl_vectors(pairs: Sequence[tuple[Key, str]]) -> np.ndarray:
    return crosslingual_encoder().encode([text for _key, text in pairs])


def fact_saved_crosslingual(fact_id: int, action: str) -> None:
    if crosslingual_path() and action not in ("confirmed", "relinked"):
        vector_changed(CROSSLINGUAL_KIND, [fact_id])


def crosslingual_enabled() -> bool:
    """The source is on: its kind is registered (idempotent) so the index exists."""
    if not crosslingual_path():
        return False
    if CROSSLINGUAL_KIND not in KINDS:
        crosslingual_kind_register()
    return True


def crosslingual_kind_register() -> None:
    """Register the kind when the source is on (``ready``; settings changed later are
    seen by ``crosslingual_enabled``): with it off, no index of it is ever built."""
    if not crosslingual_path():
        return
    encoder_class = import_string(crosslingual_path())
    # The text is its own version: the index re-asks for a vector when it changes.
    register_model_kind(
        CROSSLINGUAL_KIND,
        Fact,
        vectors=_xl_vectors,
        dim=encoder_class.dim,
        signature=encoder_class.signature,
    )
    hooks.on_fact_saved(fact_saved_crosslingual)
