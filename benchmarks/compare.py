"""``python -m benchmarks NAME --compare REF``: the same benchmark on commit REF and on the
working tree, back to back in one run, each figure printed with its ratio.

REF is checked out into a scratch git worktree (removed afterwards) and its benchmark
runs there with this checkout's interpreter and shared material, so both sides see the
same machine, the same load and the same data. A figure that exists on one side only
is still shown, with an empty ratio.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from benchmarks.shared import ENV as SHARED_ENV
from benchmarks.shared import shared_dir


class CompareError(Exception):
    """REF cannot be checked out (unknown commit, not a git checkout)."""


@contextlib.contextmanager
def scratch_checkout(root: Path, ref: str) -> Iterator[Path]:
    """A detached worktree of ``ref`` in a temporary folder, removed on exit."""
    try:
        resolved = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except CompareError:
        raise CompareError("not a commit of this repository") from None
    parent = Path(tempfile.mkdtemp(prefix="kgsite-compare-"))
    path = parent / "checkout"
    _git(root, "worktree", "add", "--detach", "--quiet", str(path), resolved)
    try:
        yield path
    finally:
        _git(root, "worktree", "remove", "--force", str(path))
        with contextlib.suppress(OSError):
            parent.rmdir()


def _git(root: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip().splitlines()
        raise CompareError(f"git {args[0]}: {message[-1] if message else 'failed'}")
    return result.stdout.strip()


def child_env() -> dict[str, str]:
    """The environment for REF's side: this checkout's shared material, wherever REF is."""
    return {**os.environ, SHARED_ENV: str(shared_dir().resolve())}


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _key(row: dict) -> tuple[str, str]:
    return str(row.get("benchmark", "")), str(row.get("metric", ""))


def _ratio(before: object, after: object) -> float | None:
    numbers = (int, float)
    if isinstance(before, bool) or isinstance(after, bool):
        return None
    if not isinstance(before, numbers) or not isinstance(after, numbers) or before == 0:
        return None
    return float(after) / float(before)


def compare_rows(ref: str, before: list[dict], after: list[dict]) -> list[dict]:
    """One row per figure: REF's value, the working tree's, and after / before."""
    by_key = {_key(row): row for row in before}
    rows: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for row in after:
        old = by_key.get(_key(row), {})
        seen.add(_key(row))
        rows.append(_merged(ref, old, row))
    rows.extend(_merged(ref, row, {}) for row in before if _key(row) not in seen)
    return rows


def _merged(ref: str, old: dict, new: dict) -> dict:
    base = new or old
    return {
        "benchmark": base.get("benchmark", ""),
        "metric": base.get("metric", ""),
        "before": old.get("value", ""),
        "value": new.get("value", ""),
        "ratio": _ratio(old.get("value"), new.get("value")),
        "unit": base.get("unit", ""),
        "goal": new.get("goal", old.get("goal", "")),
        "ok": new.get("ok"),
        "error": new.get("error") or old.get("error"),
        "note": new.get("note", ""),
        "ref": ref,
    }
