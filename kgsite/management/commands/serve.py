"""``manage.py serve``: a web server and its background workers, stopped together.

``make run`` and ``make prod`` start through this. Each child runs in its own session,
so a terminal's Ctrl-C or a SIGTERM to ``make`` reaches only this supervisor, which stops
each child exactly once the way it stops cleanly (SIGINT for ``qcluster``: a second
signal while django-q2 is already shutting down left it hung in its handler), waits, and
kills what is still there after a grace period. No orphaned worker either way.

With ``--log FILE`` the children write to that file instead of the terminal, and with
``--ready-url`` the supervisor prints the ``--say`` lines once that URL answers, so the
terminal ends with what a person needs (the address, the login) rather than with the
workers' chatter. A server that stops before it answers has the end of the log shown;
an address something else already answers at is refused before anything starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import deque
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

GRACE_SECONDS = 30.0
READY_SECONDS = 120.0
LOG_TAIL_LINES = 15


class Command(BaseCommand):
    help = (
        "Run a web server (the arguments after --) with N qcluster processes; "
        "SIGTERM or SIGINT stops them all."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--workers", type=int, default=1, help="qcluster processes")
        parser.add_argument(
            "--ingest-workers",
            type=int,
            default=0,
            help="qcluster processes for the ingestion queue (KGSITE_INGEST_CLUSTER)",
        )
        parser.add_argument(
            "--log", default="", help="append the server's and workers' output to this file"
        )
        parser.add_argument(
            "--ready-url", default="", help="print the --say lines once this URL answers"
        )
        parser.add_argument(
            "--say", action="append", default=[], help="a line to print when ready (repeatable)"
        )
        parser.add_argument("server", nargs="+", help="the server command line, after --")

    def handle(
        self,
        *args,
        workers: int,
        ingest_workers: int,
        server: list[str],
        log: str,
        ready_url: str,
        say: list[str],
        **options,
    ) -> None:
        if workers < 0 or ingest_workers < 0:
            raise CommandError("--workers and --ingest-workers must be 0 or more")
        ingest = settings.KGSITE_INGEST_CLUSTER
        if ingest_workers and not ingest:
            raise CommandError("--ingest-workers needs KGSITE_INGEST_CLUSTER")
        if ready_url and _Readiness(ready_url, time.monotonic() + 5).check() == "ready":
            # Else the other server's answer would be taken for ours.
            raise CommandError(f"something already answers at {ready_url}: is it running?")
        stop = {"signal": None}

        def on_signal(signum, _frame) -> None:
            stop["signal"] = signum

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        manage = [sys.executable, sys.argv[0]]
        nice = settings.KGSITE_WORKER_NICE

        output = _open_log(log)
        redirect = {"stdout": output, "stderr": subprocess.STDOUT} if output else {}

        def worker(env: dict | None = None) -> subprocess.Popen:
            return subprocess.Popen(
                [*manage, "qcluster"],
                env=env,
                start_new_session=True,
                **redirect,
                # A lower priority for the worker (the supervisor runs no threads).
                preexec_fn=(lambda: os.nice(nice)) if nice else None,  # noqa: PLW1509
            )

        ingest_env = {**os.environ, "Q_CLUSTER_NAME": ingest}
        children = [(worker(), signal.SIGINT) for _ in range(workers)]
        children += [(worker(ingest_env), signal.SIGINT) for _ in range(ingest_workers)]
        web = _start_server(server, redirect, children)
        waiting = _Readiness(ready_url, time.monotonic() + READY_SECONDS) if ready_url else None
        while stop["signal"] is None and all(p.poll() is None for p, _ in children):
            state = waiting.check() if waiting is not None else ""
            if state:
                waiting = None
                late = f"{ready_url} has not answered in {READY_SECONDS:.0f} s"
                self.stdout.write("\n".join(say) if state == "ready" else f"{late}: see {log}")
                self.stdout.flush()
            time.sleep(0.2)
        code = _stop_all(children)
        if output:
            output.close()
        if stop["signal"] is None and web.returncode not in (0, None):
            if log:
                self.stderr.write(f"The end of {log}:\n{_tail(log)}")
            raise CommandError(f"the server exited with status {web.returncode}")
        if stop["signal"] is not None and log:
            self.stdout.write(f"Stopped (the server's and workers' output is in {log}).")
        sys.exit(0 if stop["signal"] is not None else code)


class _Readiness:
    """Asks the URL, at most every second, until any HTTP answer (an error status
    included: the server is up): "ready"; "late" past the deadline; "" meanwhile."""

    def __init__(self, url: str, deadline: float) -> None:
        self.url = url
        self.deadline = deadline
        self.next_try = 0.0

    def check(self) -> str:
        now = time.monotonic()
        if now > self.deadline:
            return "late"
        if now < self.next_try:
            return ""
        self.next_try = now + 1.0
        try:
            with urllib.request.urlopen(self.url, timeout=2):
                return "ready"
        except urllib.error.HTTPError:
            return "ready"
        except (OSError, ValueError):
            return ""


def _start_server(server: list[str], redirect: dict, children: list) -> subprocess.Popen:
    """Start the web server after the workers; one it cannot start (no such program)
    stops the workers already started, so none outlives the supervisor. They get SIGTERM:
    a worker still importing Django has no handler yet, and SIGINT would end it with a
    KeyboardInterrupt traceback on the terminal beside the one-line refusal."""
    try:
        web = subprocess.Popen(server, start_new_session=True, **redirect)
    except OSError as exc:
        _stop_all([(process, signal.SIGTERM) for process, _how in children])
        raise CommandError(f"cannot start the server {server[0]}: {exc.strerror}") from None
    children.append((web, signal.SIGTERM))
    return web


def _open_log(log: str) -> IO[bytes] | None:
    if not log:
        return None
    path = Path(log)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        output = path.open("ab")
    except OSError as exc:
        raise CommandError(f"cannot write the log {log}: {exc.strerror}") from None
    output.write(f"\n=== manage.py serve, {time.strftime('%Y-%m-%d %H:%M:%S')} ===\n".encode())
    output.flush()
    return output


def _tail(log: str) -> str:
    try:
        with open(log, encoding="utf-8", errors="replace") as handle:
            return "".join(deque(handle, maxlen=LOG_TAIL_LINES)).rstrip()
    except OSError:
        return "(unreadable)"


def _stop_all(children: list[tuple[subprocess.Popen, int]]) -> int:
    for process, how in children:
        if process.poll() is None:
            _signal_group(process, how)
    deadline = time.monotonic() + GRACE_SECONDS
    for process, _how in children:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait()
    return max((abs(p.returncode or 0) for p, _ in children), default=0)


def _signal_group(process: subprocess.Popen, how: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, how)  # the child and the workers it forked
