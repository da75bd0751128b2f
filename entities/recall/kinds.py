"""The "episodes" kind of the vectors room: past work is found by meaning, like facts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgsite.vectors.index import Key, register_kind

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
