"""django-q2 tasks of the integrity app: take ids, call one service."""

from __future__ import annotations

from .services import fact_check


def fact_check_task(fact_id: int) -> dict:
    return fact_check(fact_id=fact_id).as_dict()
