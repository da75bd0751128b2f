"""``manage.py serve``: a web server and its background workers, stopped together.

``make run`` and ``make prod`` start through this. Each child runs in its own session,
so a terminal's Ctrl-C or a SIGTERM to ``make`` reaches only this supervisor, which stops
each child exactly once the way it stops cleanly (SIGINT for ``qcluster``: a second
signal while django-q2 is already shutting down left it hung in its handler), waits, and
kills what is still there after a grace period. No orphaned worker either way.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

GRACE_SECONDS = 30.0


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
        parser.add_argument("server", nargs="+", help="the server command line, after --")

    def handle(
        self, *args, workers: int, ingest_workers: int, server: list[str], **options
    ) -> None:
        if workers < 0 or ingest_workers < 0:
            raise CommandError("--workers and --ingest-workers must be 0 or more")
        ingest = settings.KGSITE_INGEST_CLUSTER
        if ingest_workers and not ingest:
            raise CommandError("--ingest-workers needs KGSITE_INGEST_CLUSTER")
        stop = {"signal": None}

        def on_signal(signum, _frame) -> None:
            stop["signal"] = signum

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        manage = [sys.executable, sys.argv[0]]
        nice = settings.KGSITE_WORKER_NICE

        def worker(env: dict | None = None) -> subprocess.Popen:
            return subprocess.Popen(
                [*manage, "qcluster"],
                env=env,
                start_new_session=True,
                # A lower priority for the worker (the supervisor runs no threads).
                preexec_fn=(lambda: os.nice(nice)) if nice else None,  # noqa: PLW1509
            )

        ingest_env = {**os.environ, "Q_CLUSTER_NAME": ingest}
        children = [(worker(), signal.SIGINT) for _ in range(workers)]
        children += [(worker(ingest_env), signal.SIGINT) for _ in range(ingest_workers)]
        web = subprocess.Popen(server, start_new_session=True)
        children.append((web, signal.SIGTERM))
        while stop["signal"] is None and all(p.poll() is None for p, _ in children):
            time.sleep(0.2)
        code = _stop_all(children)
        if stop["signal"] is None and web.returncode not in (0, None):
            raise CommandError(f"the server exited with status {web.returncode}")
        sys.exit(0 if stop["signal"] is not None else code)


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
