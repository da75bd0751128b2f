"""django-q2 tasks of the integrity app: take ids, call one service."""

from __future__ import annotations

from .services import fact_check_run


def fact_check_task(fact_id: int) -> dict:
    return fact_check_run(fact_id=fact_id)
