"""Linear time on any text (issue 27): no function that reads user text may grow faster
than linearly on some shape of input.

Every target of ``benchmarks.adversarial`` (normalisers, the pair model, the page
helpers, the parsers, the extraction steps) is timed on a generated text of 1,250 and of
20,000 characters, built by repeating a short unit drawn from the characters those
functions look for. Linear code takes about 16 times longer on the long text; the test
fails at ten times that (a quadratic path takes about 256 times longer). Ratios, not
absolute times: it holds on a slow or busy machine. ``python -m benchmarks adversarial``
prints the same functions' times at four sizes.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.adversarial import TARGETS, UNITS, prepare, timed

pytestmark = pytest.mark.django_db

SMALL, LARGE = 1_250, 20_000
LINEAR = LARGE / SMALL
REGRESSION = 10.0
# Below this much CPU on the long text nothing is worth calling quadratic: a quadratic
# path over 20,000 characters costs hundreds of milliseconds. It also keeps a function
# with a fast path for short texts (a section under the chunk size is one chunk) from
# passing for super-linear: its short-text time is microseconds, so any ratio is large.
NEGLIGIBLE = 0.010

# The characters the text readers branch on: digits and their separators, amounts,
# spaces, letters of both cases, markdown and code marks, quotes, accents.
ALPHABET = "0123456789 ,.:;/-+°$€%kmhaAbBxX_()[]#|*`'\"\n\t>@éİß\u0301١中"
UNITS_DRAWN = st.one_of(
    st.sampled_from(sorted(UNITS.values())),
    st.text(alphabet=ALPHABET, min_size=1, max_size=6),
)


CHECKED = TARGETS  # every text reader, the candidate pass included


def _growth(target, unit: str, small_size=SMALL, large_size=LARGE) -> tuple[float, float, float]:
    small = timed(target.run, _repeat(unit, small_size), min_total=0.05)
    large = timed(target.run, _repeat(unit, large_size), min_total=0.05)
    return small, large, large / max(small, 1e-6)


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(target=st.sampled_from(CHECKED), unit=UNITS_DRAWN)
@example(target=next(t for t in TARGETS if "differing_words" in t.name), unit="1,")
@example(target=next(t for t in TARGETS if "structure.read" in t.name), unit="1 ")
@example(target=next(t for t in TARGETS if "chunk_sections" in t.name), unit="# h\n")
@example(target=next(t for t in TARGETS if "term forms" in t.name), unit="a/")
@example(target=next(t for t in TARGETS if "term forms" in t.name), unit="x è ")
# A line of backticks: the code-fence pattern reads them possessively (it was quadratic).
@example(target=next(t for t in TARGETS if "book_candidates" in t.name), unit="`")
def test_no_text_function_grows_faster_than_linearly(target, unit):
    prepare()
    small, large, growth = _growth(target, unit)
    assert growth < LINEAR * REGRESSION or large < NEGLIGIBLE, (
        f"{target.name} on {unit!r} x {LARGE:,} chars took {growth:.0f} times as long as on "
        f"{SMALL:,} chars ({small * 1000:.2f} -> {large * 1000:.1f} ms); linear is {LINEAR:.0f}"
    )


@pytest.mark.parametrize("unit", ["a", "A"])
def test_book_candidates_grow_linearly(unit):
    target = next(t for t in TARGETS if t.name == "extraction book_candidates")
    # The same 16-fold span, smaller: quadratic at 20,000 characters takes seconds.
    _small, _large, growth = _growth(target, unit, SMALL // 2, LARGE // 2)
    assert growth < LINEAR * REGRESSION
