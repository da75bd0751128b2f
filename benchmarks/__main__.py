"""Run the benchmarks and print one table: ``python -m benchmarks [name ...] [--quick]``.

Every ``benchmarks/bench_<name>.py`` module exposes ``run(quick: bool = False)``
returning rows ``{"benchmark", "metric", "value", "unit", "goal"}``, optionally with
``"ok": bool`` (checked against the goal) and ``"note"``. Each module runs in a fresh
subprocess so it gets its own Django setup and scratch database, and a crash, hang or
segfault in one cannot take the others down: it shows as a FAILED row instead. The
child prints its rows as JSON on a last line marked with ``ROWS_MARKER``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from pathlib import Path

from benchmarks import compare
from benchmarks.shared import ENV as SHARED_ENV
from benchmarks.shared import SharedMissing

ROWS_MARKER = "@@KGSITE_BENCH_ROWS@@ "
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COLUMNS = ("benchmark", "metric", "value", "unit", "goal", "ok", "note")


def available() -> list[str]:
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


# --- child side ----------------------------------------------------------------------
def child_main(name: str, quick: bool) -> int:
    """Run one benchmark in this process and print its rows on the marked last line."""
    try:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        rows = [dict(row) for row in module.run(quick=quick)]
        payload = {"rows": rows}
        code = 0
    except SharedMissing as exc:
        payload = {"skipped": str(exc)}
        code = 0
    except BaseException as exc:  # noqa: BLE001 - report anything, even SystemExit
        traceback.print_exc()
        payload = {"error": _one_line(exc)}
        code = 1
    sys.stdout.flush()
    print("\n" + ROWS_MARKER + json.dumps(payload, default=str), flush=True)
    return code


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


# --- parent side ---------------------------------------------------------------------
def _start(name: str, quick: bool, cwd: Path, env: dict[str, str]) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "benchmarks", "--child", name]
    if quick:
        cmd.append("--quick")
    return subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PYTHONUNBUFFERED": "1"},
    )


def _rows_from(name: str, payload: dict | None, returncode: int, stderr_tail) -> list[dict]:
    """The child's rows, or one FAILED/SKIPPED row saying why there are none."""
    if payload is None:
        last = next((t for t in reversed(stderr_tail) if t.strip()), "")
        return [_failed(name, f"exit code {returncode}" + (f": {last[:200]}" if last else ""))]
    if "skipped" in payload:
        return [{**_failed(name, payload["skipped"]), "metric": "SKIPPED", "ok": None}]
    if "error" in payload:
        return [_failed(name, payload["error"])]
    rows = payload.get("rows") or []
    if not rows:
        return [_failed(name, "returned no rows")]
    return [{**row, "benchmark": row.get("benchmark") or name} for row in rows]


def run_one(
    name: str,
    *,
    quick: bool,
    timeout: float | None,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
) -> tuple[list[dict], float]:
    """Run ``bench_<name>`` in a subprocess (in checkout ``cwd``); its stderr streams
    through, rows come back."""
    start = time.perf_counter()
    proc = _start(name, quick, cwd, dict(os.environ) if env is None else env)
    stderr_tail: deque[str] = deque(maxlen=20)

    def pump_stderr() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            sys.stderr.write(line)
            stderr_tail.append(line.rstrip())

    stdout_lines: list[str] = []
    pumps = [
        threading.Thread(target=pump_stderr, daemon=True),
        threading.Thread(target=lambda: stdout_lines.extend(proc.stdout), daemon=True),  # type: ignore[arg-type]
    ]
    for pump in pumps:
        pump.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return [_failed(name, f"timed out after {timeout:.0f} s")], time.perf_counter() - start
    finally:
        for pump in pumps:
            pump.join(5)
    payload: dict | None = None
    for line in "".join(stdout_lines).splitlines():
        if line.startswith(ROWS_MARKER):
            payload = json.loads(line[len(ROWS_MARKER) :])
        elif line.strip():
            sys.stderr.write(line + "\n")  # a benchmark's own prints are progress, not data
    elapsed = time.perf_counter() - start
    return _rows_from(name, payload, proc.returncode, stderr_tail), elapsed


def _failed(name: str, error: str) -> dict:
    return {
        "benchmark": name,
        "metric": "FAILED",
        "value": "",
        "unit": "",
        "goal": "",
        "ok": False,
        "error": error,
    }


def format_value(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:  # NaN
            return "n/a"
        magnitude = abs(value)
        if magnitude >= 1000:
            return f"{value:,.0f}"
        if magnitude >= 100:
            return f"{value:.1f}"
        if magnitude >= 1:
            return f"{value:.2f}"
        return f"{value:.3f}" if magnitude >= 0.001 or value == 0 else f"{value:.2e}"
    return str(value)


def _cell(row: dict, column: str) -> str:
    if column == "ok":
        ok = row.get("ok")
        return "" if ok is None else ("yes" if ok else "NO")
    if column == "note":
        return str(row.get("error") or row.get("note") or "")
    if column == "ratio":
        ratio = row.get("ratio")
        return "" if ratio is None else f"{ratio:.2f}x"
    if column in NUMERIC:
        return format_value(row.get(column))
    return str(row.get(column, ""))


# Columns whose cells are right-aligned when they hold numbers.
NUMERIC = ("value", "before", "ratio")


def render_table(rows: list[dict], columns: tuple[str, ...] = COLUMNS) -> str:
    """One aligned plain-text table; numbers right-aligned, a failure shows its error."""
    columns = list(columns)
    cells = [[_cell(row, c) for c in columns] for row in rows]
    if not any(c[-1] for c in cells):
        columns.pop()
        cells = [c[:-1] for c in cells]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(columns)]

    def line(values: list[str], row: dict | None = None) -> str:
        parts = [
            v.rjust(w)
            if row is not None
            and columns[i] in NUMERIC
            and isinstance(row.get(columns[i]), int | float)
            else v.ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    out = [line(columns), line(["-" * w for w in widths])]
    previous = None
    for row, c in zip(rows, cells, strict=True):
        if previous is not None and row.get("benchmark") != previous:
            out.append("")
        previous = row.get("benchmark")
        out.append(line(c, row))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Run kgsite benchmarks (each in its own process) and print one table.",
    )
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default all): {available()}")
    parser.add_argument("--quick", action="store_true", help="smaller data sets, for a smoke run")
    parser.add_argument("--json", metavar="PATH", help="also write the rows to this JSON file")
    parser.add_argument(
        "--postgres",
        nargs="?",
        const="postgres://postgres@127.0.0.1:5432/postgres",
        metavar="URL",
        help="run on a scratch database on this PostgreSQL server (default %(const)s); "
        "a DATABASE_URL naming a server database does the same",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=14400,
        help="seconds per benchmark (default 4 hours: kge and scale at full size take over one)",
    )
    parser.add_argument(
        "--shared",
        metavar="DIR",
        help=f"the shared corpus and evaluation sets (default ../shared beside the checkout, "
        f"or ${SHARED_ENV})",
    )
    parser.add_argument(
        "--size",
        type=int,
        metavar="N",
        help="data size for benchmarks that take one (scale; recall: N facts, N/10 episodes; "
        "kge: entities of the generated graph); passed to them as KGSITE_BENCH_SIZE",
    )
    parser.add_argument(
        "--compare",
        metavar="REF",
        help="run each benchmark on commit REF (a scratch worktree) and on the working tree, "
        "back to back, and print both figures with their ratio",
    )
    parser.add_argument("--child", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.size is not None:
        if args.size < 100:
            parser.error("--size must be at least 100")
        os.environ["KGSITE_BENCH_SIZE"] = str(args.size)

    if args.size is not None:
        os.environ["KGSITE_BENCH_SIZE"] = str(args.size)
    if args.child:
        return child_main(args.child, args.quick)

    known = available()
    names = args.names or known
    unknown = [n.removeprefix("bench_") for n in names if n.removeprefix("bench_") not in known]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; available: {', '.join(known)}")
    names = [n.removeprefix("bench_") for n in names]
    if args.postgres:
        os.environ["DATABASE_URL"] = args.postgres
    if args.shared:
        os.environ[SHARED_ENV] = str(Path(args.shared).resolve())

    if args.compare:
        return _compare(names, args)

    all_rows: list[dict] = []
    failures = 0
    for name in names:
        rows = _run_logged(name, args)
        failures += any(r.get("metric") == "FAILED" for r in rows)
        all_rows.extend(rows)

    print(render_table(all_rows))
    if args.json:
        meta = {
            "quick": args.quick,
            "database": "postgresql" if _server_db() else "sqlite",
            "python": platform.python_version(),
            "machine": platform.platform(),
            "cpus": os.cpu_count(),
            "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        Path(args.json).write_text(json.dumps({"meta": meta, "rows": all_rows}, indent=2) + "\n")
    return 1 if names and failures == len(names) else 0


def _run_logged(
    name: str, args: argparse.Namespace, cwd: Path = ROOT, env: dict | None = None, side: str = ""
) -> list[dict]:
    label = f"{name}{side}"
    print(f"== {label} ...", file=sys.stderr, flush=True)
    rows, elapsed = run_one(name, quick=args.quick, timeout=args.timeout, cwd=cwd, env=env)
    status = "FAILED" if any(r.get("metric") == "FAILED" for r in rows) else "done"
    print(f"== {label} {status} in {elapsed:.1f} s", file=sys.stderr, flush=True)
    return rows


def _compare(names: list[str], args: argparse.Namespace) -> int:
    """Each benchmark on REF, then on the working tree, back to back."""
    try:
        with compare.scratch_checkout(ROOT, args.compare) as ref_root:
            all_rows = [row for name in names for row in _compare_one(name, ref_root, args)]
    except compare.CompareError as exc:
        print(f"--compare {args.compare}: {exc}", file=sys.stderr)
        return 2
    print(f"before = commit {args.compare}; value = working tree; ratio = value / before")
    print(render_table(all_rows, COMPARE_COLUMNS))
    if args.json:
        Path(args.json).write_text(json.dumps({"compare": args.compare, "rows": all_rows}) + "\n")
    return 0


def _compare_one(name: str, ref_root: Path, args: argparse.Namespace) -> list[dict]:
    loads = [compare.load_average()]
    before = _run_logged(name, args, ref_root, compare.child_env(), f" @ {args.compare}")
    loads.append(compare.load_average())
    after = _run_logged(name, args, side=" @ working tree")
    load_row = {"benchmark": name, "metric": "load average (1 min) at start", "unit": ""}
    load_row.update(before=loads[0], value=loads[1], ratio=None, goal="")
    return [*compare.compare_rows(args.compare, before, after), load_row]


COMPARE_COLUMNS = ("benchmark", "metric", "before", "value", "ratio", "unit", "goal", "ok", "note")


def _server_db() -> bool:
    url = os.environ.get("DATABASE_URL", "")
    return bool(url) and not url.startswith("sqlite")


if __name__ == "__main__":
    sys.exit(main())
