"""Linear time on any text (issue 27): every function that reads user text, over
pathological inputs of 2,500 / 5,000 / 10,000 / 20,000 characters.

Per target, the shape of input on which it grows fastest: its time at each size and
its growth per doubling of the text (2x is linear, 4x quadratic). The full matrix
(every target x every shape) goes to stderr as it is measured.
"""

from __future__ import annotations

import sys

from benchmarks import _django
from benchmarks.adversarial import SIZES, TARGETS, UNITS, Curve, curve, prepare

# Above this growth per doubling a target is not linear (quadratic is 4x).
GOAL_GROWTH = 2.8


def _fmt_ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.3g}" if ms < 100 else f"{ms:,.0f}"


def _line(c: Curve) -> str:
    times = " ".join(
        f"{size // 1000 if size % 1000 == 0 else size / 1000}k={_fmt_ms(s)}ms"
        for size, s in sorted(c.seconds.items())
    )
    skipped = f" (skipped {', '.join(map(str, c.skipped))}: too slow)" if c.skipped else ""
    return f"{c.shape!r}: {times}{skipped}"


def run(quick: bool = False) -> list[dict]:
    _django.setup("adversarial")
    prepare()
    sizes = SIZES[:3] if quick else SIZES
    rows = []
    for target in TARGETS:
        curves = []
        for shape in UNITS:
            c = curve(target, shape, sizes)
            curves.append(c)
            print(f"{target.name:<42} {c.per_doubling():5.2f}x  {_line(c)}", file=sys.stderr)
        worst = max(curves, key=lambda c: (bool(c.skipped), c.per_doubling()))
        slowest = max(curves, key=lambda c: c.seconds[max(c.seconds)])
        growth = float("inf") if worst.skipped else worst.per_doubling()
        rows.append(
            {
                "benchmark": "adversarial",
                "metric": f"{target.name}: growth per doubling",
                "value": round(worst.per_doubling(), 2),
                "unit": "x",
                "goal": f"< {GOAL_GROWTH}",
                "ok": growth < GOAL_GROWTH,
                "note": _line(worst),
            }
        )
        rows.append(
            {
                "benchmark": "adversarial",
                "metric": f"{target.name}: slowest at {max(slowest.seconds):,} chars",
                "value": round(slowest.seconds[max(slowest.seconds)] * 1000, 3),
                "unit": "ms",
                "goal": "",
                "note": _line(slowest),
            }
        )
    return rows
