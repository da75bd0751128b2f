"""Mixed readers and writers against the development and production profiles, side by side.

``python -m benchmarks.load [--profiles dev,prod] [--seconds 30] [--writers 8] [--readers 4]
[--cold]`` (``python -m benchmarks load`` runs the production profile cold on SQLite and on
PostgreSQL and prints the figures in the benchmarks' table).

Each profile is started the way ``make run`` / ``make prod`` start it (``manage.py serve``:
runserver and one worker; gunicorn, the Redis broker and several workers) on a scratch
database and data directory, bound to 127.0.0.1 only, loaded for a fixed time, checked,
and stopped: the script ends by itself. Writers store facts (each text new) and create
entities from a pool of Unicode spellings of the same names (Turkish İ/ı, ß, final sigma,
ligatures, NFD); readers look names up, list and search facts. Printed per endpoint:
requests, throughput, p50/p99; then errors (any 5xx, or a 4xx a correct request should
not get), duplicates (entities sharing a normalised name and type) and lost writes
(acknowledged facts that cannot be read back).

The production profile needs Redis on loopback (``--redis URL``) and, by default,
PostgreSQL: ``--postgres URL`` names the server (a scratch database
``<database of the URL>_load_<profile>_<pid>`` is created and dropped). A profile may name
its database: ``prod:sqlite``, ``prod:postgres``, ``dev:postgres`` (``--database postgres``
runs the dev profile on PostgreSQL too). ``--cold`` skips the untimed warm-up: the timed
run starts as soon as the fresh server answers, as a real deployment's first clients do.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
MAX_SECONDS = 600
# Spellings that must all land on one entity per name (and type).
NAME_POOL = [
    ["İzmir Kışla", "İZMIR KIŞLA", "izmir kişla", "IZMIR KIŞLA"],
    ["Straße der Einheit", "STRASSE DER EINHEIT", "strasse der einheit"],
    ["Οδυσσεύς", "ΟΔΥΣΣΕΎΣ", "οδυσσεύς"],
    ["ﬁnance ﬂow", "FINANCE FLOW", "finance flow"],
    ["Café Müller", "CAFÉ MÜLLER", "Cafe\u0301 Mu\u0308ller"],
]
WORDS = [
    "harbour",
    "ledger",
    "orbit",
    "copper",
    "violet",
    "granite",
    "meadow",
    "lantern",
    "quarry",
    "saffron",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _loopback(url: str) -> str:
    host = urlsplit(url).hostname or ""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"load: {url} is not on loopback; refusing")
    return url


class Profile:
    """One running configuration: scratch database, server and workers, stopped at exit."""

    def __init__(self, name: str, *, database: str, redis: str, workers: int) -> None:
        self.name = name
        self.port = _free_port()
        self.tmp = Path(tempfile.mkdtemp(prefix=f"kgsite-load-{name}-"))
        self.env = {
            **os.environ,
            "KGSITE_DATA_DIR": str(self.tmp),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "KGSITE_LOG_LEVEL": "ERROR",
            "DJANGO_SECRET_KEY": "load-" + os.urandom(16).hex(),
            "KGSITE_SSL_REDIRECT": "0",
        }
        self.scratch = None
        if database.startswith("postgres"):
            base = urlsplit(database).path.lstrip("/") or "kgsite"
            self.scratch = f"{base}_load_{name}_{os.getpid()}"
            _psql(_loopback(database), f'CREATE DATABASE "{self.scratch}"')
            self.env["DATABASE_URL"] = database.rsplit("/", 1)[0] + "/" + self.scratch
            self.admin_url = database
        else:
            self.env["DATABASE_URL"] = f"sqlite:///{self.tmp / 'load.sqlite3'}"
        if name == "prod":
            self.env["DJANGO_SETTINGS_MODULE"] = "kgsite.settings.production"
            self.env["REDIS_URL"] = _loopback(redis)
            # Per profile run, not per process: two profiles of one run (SQLite, then
            # PostgreSQL) each sign their tasks with their own secret key, and a queue
            # left with the first one's tasks made the second's workers spin on them.
            unique = self.tmp.name
            self.env["KGSITE_Q_NAME"] = unique
            self.env["KGSITE_CACHE_PREFIX"] = unique
            self.env["KGSITE_Q_WORKERS"] = str(workers)
            self.env["KGSITE_INGEST_CLUSTER"] = f"{unique}-ingest"
            server = [
                str(Path(PY).parent / "gunicorn"), "kgsite.wsgi", "--bind",
                f"127.0.0.1:{self.port}", "--workers", "2", "--threads", "4",
                "--worker-class", "gthread", "--timeout", "60",
            ]  # fmt: skip
        else:
            self.env["DJANGO_SETTINGS_MODULE"] = "kgsite.settings.dev"
            self.env.pop("REDIS_URL", None)
            server = [PY, "manage.py", "runserver", "--noreload", "--insecure",
                      f"127.0.0.1:{self.port}"]  # fmt: skip
        self._manage("migrate", "--noinput", "--verbosity", "0")
        if name == "prod":
            self._manage("collectstatic", "--noinput", "--verbosity", "0")
        self.tokens = self._tokens()
        self.log = open(self.tmp / "server.log", "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [PY, "manage.py", "serve", "--workers", "1", "--ingest-workers",
             "1" if name == "prod" else "0", "--", *server],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self._wait_ready()

    def _manage(self, *args: str) -> str:
        done = subprocess.run(
            [PY, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True
        )
        if done.returncode:
            raise SystemExit(f"load: manage.py {args[0]} failed: {done.stderr.strip()[-500:]}")
        return done.stdout

    def queued(self) -> int:
        """Jobs waiting in the broker's queue (not those a worker holds)."""
        code = "from django_q.brokers import get_broker; print(get_broker().queue_size())"
        return int(self._manage("shell", "-c", code).strip().splitlines()[-1])

    def _tokens(self) -> list[str]:
        code = (
            "from django.contrib.auth.models import User, Group, Permission\n"
            "from rest_framework.authtoken.models import Token\n"
            "g, _ = Group.objects.get_or_create(name='curators')\n"
            "g.permissions.add(Permission.objects.get(codename='curate'))\n"
            "for i in range(16):\n"
            "    u, _ = User.objects.get_or_create(username=f'load{i}')\n"
            "    u.groups.add(g)\n"
            "    print('TOKEN', Token.objects.get_or_create(user=u)[0].key)\n"
        )
        out = self._manage("shell", "-c", code).splitlines()
        return [line.split()[1] for line in out if line.startswith("TOKEN ")]

    def _wait_ready(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status, _ = Client(self.port, self.tokens[0]).request("GET", "/api/v1/facts/")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise SystemExit(f"load: the {self.name} profile did not answer within {timeout:.0f} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        if self.scratch:
            _psql(self.admin_url, f'DROP DATABASE IF EXISTS "{self.scratch}" WITH (FORCE)')


def _psql(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                # A dropped keep-alive connection is retried once, for a read only: a
                # write that may have happened counts as an error, never silently twice.
                if attempt == 2 or method != "GET":
                    raise
        try:
            return response.status, json.loads(raw or b"{}")
        except ValueError:
            return response.status, {}


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.facts: list[int] = []

    def timed(self, client: Client, label: str, method: str, path: str, body=None, ok=(200,)):
        start = time.perf_counter()
        try:
            status, payload = client.request(method, path, body)
        except OSError:
            status, payload = 599, {}
        ms = (time.perf_counter() - start) * 1000
        with self.lock:
            self.times[label].append(ms)
            if status not in ok:
                self.errors[f"{label} {status}"] += 1
        return status, payload


def _writer(rec: Recorder, client: Client, stop: threading.Event, n: int) -> None:
    rng = random.Random(n)
    i = 0
    while not stop.is_set():
        i += 1
        if rng.random() < 0.7:
            text = f"Load fact {n}-{i}: the {rng.choice(WORDS)} {rng.choice(WORDS)} holds {i}."
            status, body = rec.timed(
                client, "POST /facts/", "POST", "/api/v1/facts/", {"text": text}, ok=(200, 201)
            )
            if status in (200, 201):
                with rec.lock:
                    rec.facts.append(body["fact"]["id"])
        else:
            name = rng.choice(rng.choice(NAME_POOL))
            body = {"canonical_name": name, "type": "place"}
            rec.timed(client, "POST /entities/", "POST", "/api/v1/entities/", body, ok=(200, 201))


def _reader(rec: Recorder, client: Client, stop: threading.Event, n: int) -> None:
    rng = random.Random(1000 + n)
    while not stop.is_set():
        pick = rng.random()
        if pick < 0.4:
            name = quote(rng.choice(rng.choice(NAME_POOL)))
            rec.timed(client, "GET lookup", "GET", f"/api/v1/entities/lookup?name={name}")
        elif pick < 0.7:
            rec.timed(client, "GET /facts/", "GET", "/api/v1/facts/?page_size=20")
        else:
            q = quote(f"{rng.choice(WORDS)} {rng.choice(WORDS)}")
            rec.timed(client, "GET facts/search", "GET", f"/api/v1/facts/search?q={q}&k=5")


def _verify(profile: Profile, rec: Recorder) -> tuple[int, int]:
    """(duplicates, lost writes), read back through the API."""
    sys.path.insert(0, str(ROOT))
    from kgsite.text import normalize

    client = Client(profile.port, profile.tokens[-1])
    _, page = client.request("GET", "/api/v1/entities/?type=place&page_size=500")
    names: dict[str, int] = defaultdict(int)
    for entity in page.get("results", []):
        names[normalize(entity["canonical_name"])] += 1
    duplicates = sum(n - 1 for n in names.values())
    lost = sum(client.request("GET", f"/api/v1/facts/{pk}/")[0] != 200 for pk in rec.facts)
    return duplicates, lost


def _warm_up(profile: Profile) -> None:
    """Untimed: the first requests load the embedding model in every process.

    Sent from 8 threads at once, so every web process (and thread) gets some: sent one
    at a time, they can all land on the same gunicorn worker, and the other one then
    loads the model inside the timed run.
    """

    def warm(n: int) -> None:
        client = Client(profile.port, profile.tokens[-1])
        for i in range(3):
            client.request("POST", "/api/v1/facts/", {"text": f"Warm-up fact {n}.{i}."})
            client.request("GET", "/api/v1/facts/search?q=warm&k=5")
            client.request("GET", "/api/v1/entities/lookup?name=warm")

    threads = [threading.Thread(target=warm, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def profile_database(spec: str, args) -> tuple[str, str]:
    """("prod", database URL or "sqlite") for a profile spec "prod", "prod:sqlite"..."""
    name, _, engine = spec.partition(":")
    if name not in ("dev", "prod"):
        raise SystemExit(f"load: unknown profile {name!r}; use dev or prod")
    if not engine:
        engine = "postgres" if (name == "prod" or args.database == "postgres") else "sqlite"
    if engine not in ("sqlite", "postgres"):
        raise SystemExit(f"load: unknown database {engine!r}; use sqlite or postgres")
    return name, args.postgres if engine == "postgres" else "sqlite"


def run_profile(spec: str, args) -> dict:
    name, database = profile_database(spec, args)
    print(f"== {spec}: starting ({database.split('@')[-1]})", file=sys.stderr)
    profile = Profile(name, database=database, redis=args.redis, workers=args.qworkers)
    try:
        if not args.cold:
            _warm_up(profile)
        rec = Recorder()
        stop = threading.Event()
        threads = [
            threading.Thread(target=_writer, args=(rec, Client(profile.port, t), stop, i))
            for i, t in enumerate(profile.tokens[: args.writers])
        ] + [
            threading.Thread(target=_reader, args=(rec, Client(profile.port, t), stop, i))
            for i, t in enumerate(profile.tokens[args.writers : args.writers + args.readers])
        ]
        load_average = os.getloadavg()[0]
        cpu_before = _server_cpu(profile)
        start = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        stop.set()
        for t in threads:
            t.join(timeout=120)
        elapsed = time.perf_counter() - start
        cpu_after = _server_cpu(profile)
        cpu = {role: cpu_after[role] - cpu_before[role] for role in cpu_after}
        # Work the run left to the workers: cheaper requests that leave more jobs behind
        # are not more throughput.
        queued = profile.queued()
        duplicates, lost = _verify(profile, rec)
        print(f"== {name}: {sum(map(len, rec.times.values()))} requests", file=sys.stderr)
        return {
            "times": rec.times,
            "errors": rec.errors,
            "elapsed": elapsed,
            "duplicates": duplicates,
            "lost": lost,
            "database": database.split(":")[0],
            "server_cpu": cpu,
            "load_average": load_average,
            "queued": queued,
        }
    finally:
        profile.stop()
        print(f"   server log: {profile.tmp / 'server.log'}", file=sys.stderr)


def _server_cpu(profile: Profile) -> dict[str, float]:
    """CPU seconds used so far by the server and its workers, by role ("web": the HTTP
    server's processes, "jobs": the background workers): on a shared machine, the cost
    per request that waiting for a core does not inflate."""
    import psutil

    used = {"web": 0.0, "jobs": 0.0}
    try:
        root = psutil.Process(profile.process.pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return used
    for proc in procs:
        try:
            times = proc.cpu_times()
            role = "jobs" if "qcluster" in " ".join(proc.cmdline()) else "web"
        except psutil.Error:
            continue
        used[role] += times.user + times.system
    return used


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def cpu_per_request(r: dict, role: str | None = None) -> float:
    """Server CPU milliseconds per request of the timed run: all of it, or one role's."""
    used = r["server_cpu"]
    seconds = sum(used.values()) if role is None else used.get(role, 0.0)
    return 1000 * seconds / max(1, sum(map(len, r["times"].values())))


def report(results: dict[str, dict]) -> None:
    names = list(results)
    labels = sorted({label for r in results.values() for label in r["times"]})
    head = f"{'endpoint':<20}" + "".join(
        f"{n + ' (' + results[n]['database'] + ')':>36}" for n in names
    )
    print(head)
    print(f"{'':<20}" + "".join(f"{'req/s':>12}{'p50 ms':>12}{'p99 ms':>12}" for _ in names))
    for label in labels:
        line = f"{label:<20}"
        for n in names:
            t = results[n]["times"].get(label, [])
            rate = len(t) / results[n]["elapsed"]
            line += f"{rate:>12.1f}{_pct(t, 0.5):>12.1f}{_pct(t, 0.99):>12.1f}"
        print(line)
    for title, key in (("total req/s", None), ("server CPU ms/req", "cpu"),
                       ("  web", "cpu:web"), ("  background jobs", "cpu:jobs"),
                       ("jobs queued at the end", "queued"),
                       ("load average", "load_average"), ("errors", "errors"),
                       ("duplicates", "duplicates"), ("lost writes", "lost")):  # fmt: skip
        line = f"{title:<20}"
        for n in names:
            r = results[n]
            if key is None:
                value = f"{sum(map(len, r['times'].values())) / r['elapsed']:.1f}"
            elif key == "errors":
                value = str(sum(r["errors"].values()))
            elif key.startswith("cpu"):
                value = f"{cpu_per_request(r, key.partition(':')[2] or None):.1f}"
            elif key == "load_average":
                value = f"{r['load_average']:.1f}"
            else:
                value = str(r[key])
            line += f"{value:>36}"
        print(line)
    for n in names:
        for what, count in sorted(results[n]["errors"].items()):
            print(f"  {n}: {what} x{count}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="dev,prod",
                        help="dev, prod, or either with :sqlite / :postgres")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--qworkers", type=int, default=2, help="worker processes (prod)")
    parser.add_argument("--cold", action="store_true",
                        help="no warm-up: time the fresh server's first requests too")  # fmt: skip
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite",
                        help="dev without :engine; prod defaults to PostgreSQL")  # fmt: skip
    parser.add_argument("--postgres", default=os.environ.get(
        "KGSITE_LOAD_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres"))  # fmt: skip
    parser.add_argument("--redis", default=os.environ.get(
        "KGSITE_LOAD_REDIS", "redis://127.0.0.1:6379/0"))  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be in (0, {MAX_SECONDS}]")
    if args.writers + args.readers > 16:
        parser.error("at most 16 clients (writers + readers)")
    results = run_all(args)
    report(results)
    return 0


def run_all(args) -> dict[str, dict]:
    return {spec: run_profile(spec, args) for spec in args.profiles.split(",")}


def parse_args(argv: list[str] | None = None):
    return _parser().parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
