"""The "episodes" kind of the vectors room: past work is found by meaning, like facts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

from kgsite.vectors.index import KINDS, Key, register_kind
from kgsite.vectors.service import vector_changed

from .. import hooks
from ..models import Fact
from .models import Episode


def _episode_rows(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
    qs = Episode.objects.order_by("pk")
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
    return qs.values_list("pk", "narrative").iterator(chunk_size=2000)


def _episode_keys() -> Iterable[Key]:
    return Episode.objects.order_by().values_list("pk", flat=True).iterator(chunk_size=10_000)


def _episode_count() -> int:
    return Episode.objects.count()


def episodes_kind_register() -> None:
    register_kind("episodes", _episode_rows, keys=_episode_keys, count=_episode_count, key_type=int)


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


def _fact_texts(ids: Sequence[Key] | None) -> Iterable[tuple[Key, str]]:
    # The text is its own version: the index re-asks for a vector when it changes.
    qs = Fact.objects.order_by("pk")
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
    return qs.values_list("pk", "text").iterator(chunk_size=2000)


def _fact_keys() -> Iterable[Key]:
    return Fact.objects.order_by().values_list("pk", flat=True).iterator(chunk_size=10_000)


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
    register_kind(
        CROSSLINGUAL_KIND,
        _fact_texts,
        keys=_fact_keys,
        count=Fact.objects.count,
        key_type=int,
        vectors=_xl_vectors,
        dim=encoder_class.dim,
        signature=encoder_class.signature,
    )
    hooks.on_fact_saved(fact_saved_crosslingual)
