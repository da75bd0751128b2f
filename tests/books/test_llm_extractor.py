"""The LLM extractor through the real openai client against a scripted local server."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from books.models import IngestJob, Mention
from books.services import book_ingest, book_ingest_now
from entities.models import Entity

BOOK = b"""# Tales

## The Harbour

Captain Mirelle Vos sailed the Gull into Port Ashen at dawn. The harbour master
of Port Ashen, old Tobin Marsh, waved from the pier.

## The Market

In the market Mirelle Vos bought rope. Tobin Marsh said nothing.
"""


class _Script:
    """Answers per request, in order; the last one repeats."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, str, float]] = []
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def next(self) -> tuple[int, str, float]:
        with self.lock:
            if len(self.answers) > 1:
                return self.answers.pop(0)
            return self.answers[0]


@pytest.fixture
def llm_server(settings):
    script = _Script()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            with script.lock:
                script.requests.append(body)
            status, content, delay = script.next()
            if delay:
                time.sleep(delay)
            if status != 200:
                payload = json.dumps({"error": {"message": "boom"}}).encode()
            else:
                payload = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "m"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                    }
                ).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.KGSITE_LLM_BASE_URL = f"http://127.0.0.1:{server.server_address[1]}/v1"
    settings.KGSITE_LLM_MODEL = "scripted"
    settings.KGSITE_LLM_API_KEY = "test"
    settings.KGSITE_LLM_TIMEOUT = 1.0
    settings.KGSITE_LLM_MAX_RETRIES = 2
    settings.KGSITE_LLM_CONCURRENCY = 2
    yield script
    server.shutdown()
    server.server_close()


GOOD = json.dumps(
    [
        {"name": "Mirelle Vos", "type": "person", "mention_type": "references"},
        {"name": "Port Ashen", "type": "place", "mention_type": "defines"},
        {"name": "Tobin Marsh", "type": "person", "mention_type": "references"},
        {"name": "Not In The Text", "type": "person", "mention_type": "references"},
        {"name": "", "type": "person", "mention_type": "references"},
        {"name": "Gull", "type": "ship", "mention_type": "owns"},
        "__import__('os').system('echo pwned')",
    ]
)


def test_good_json_becomes_entities_and_mentions(db, llm_server):
    llm_server.answers = [(200, GOOD, 0)]
    result = book_ingest(data=BOOK, filename="tales.md", extractor="llm")
    assert result.book.extractor == "llm"
    assert not result.warnings
    names = set(Entity.objects.values_list("canonical_name", "type"))
    assert {("Mirelle Vos", "person"), ("Port Ashen", "place"), ("Tobin Marsh", "person")} <= names
    # Invalid items (absent from the text, empty, unknown mention type, not objects) dropped.
    assert not Entity.objects.filter(canonical_name__in=["Not In The Text", "Gull"]).exists()
    port = Entity.objects.get(canonical_name="Port Ashen")
    assert Mention.objects.filter(entity=port, mention_type="defines").exists()
    vos = Mention.objects.filter(entity__canonical_name="Mirelle Vos")
    assert vos.count() == 2  # one per chunk that names her
    assert all(r["model"] == "scripted" for r in llm_server.requests)
    assert any("Mirelle Vos" in r["messages"][-1]["content"] for r in llm_server.requests)


def test_fenced_json_is_accepted(db, llm_server):
    llm_server.answers = [(200, f"```json\n{GOOD}\n```", 0)]
    result = book_ingest(data=BOOK, filename="tales.md", extractor="llm")
    assert not result.warnings
    assert Entity.objects.filter(canonical_name="Port Ashen").exists()


def test_broken_json_is_recorded_and_chunk_kept(db, llm_server):
    Entity.objects.create(canonical_name="Tobin Marsh", name_norm="tobin marsh", type="person")
    llm_server.answers = [(200, "Sure! Here are the entities: [{'name': 'Tobin", 0)]
    job, result = book_ingest_now(data=BOOK, filename="tales.md", extractor="llm")
    assert result.chunks >= 2
    assert job.status == IngestJob.Status.DONE
    assert len(job.warnings) == result.chunks
    assert "unparseable" in job.warnings[0]["error"]
    assert "Here are the entities" in job.warnings[0]["answer"]
    # The fallback still indexes known names in every chunk.
    assert Mention.objects.filter(entity__canonical_name="Tobin Marsh").count() == 2


def test_transient_errors_are_retried(db, llm_server):
    llm_server.answers = [(500, "", 0), (200, GOOD, 0)]
    result = book_ingest(data=BOOK, filename="tales.md", extractor="llm")
    assert not result.warnings
    assert len(llm_server.requests) == result.chunks + 1  # one failure, then every chunk


def test_timeouts_fall_back_and_are_recorded(db, llm_server, settings):
    settings.KGSITE_LLM_TIMEOUT = 0.2
    settings.KGSITE_LLM_MAX_RETRIES = 1
    llm_server.answers = [(200, GOOD, 1.0)]
    job, result = book_ingest_now(data=BOOK, filename="tales.md", extractor="llm")
    assert job.status == IngestJob.Status.DONE
    assert result.chunks >= 2
    assert len(job.warnings) == result.chunks
    assert all("Timeout" in w["error"] for w in job.warnings)
    assert len(llm_server.requests) == 2 * result.chunks  # each chunk: a try and one retry


def test_rate_limited_requests_are_retried(db, llm_server):
    llm_server.answers = [(429, "", 0), (200, GOOD, 0)]
    result = book_ingest(data=BOOK, filename="tales.md", extractor="llm")
    assert not result.warnings
    assert len(llm_server.requests) == result.chunks + 1  # the 429, then every chunk
    assert Entity.objects.filter(canonical_name="Port Ashen", type="place").exists()


def test_same_file_with_another_extractor_is_ingested_again(db, llm_server):
    llm_server.answers = [(200, GOOD, 0)]
    first = book_ingest(data=BOOK, filename="tales.md", extractor="offline")
    assert first.action == "created" and not llm_server.requests
    again = book_ingest(data=BOOK, filename="tales.md", extractor="llm")
    assert again.action == "replaced"
    assert again.book.pk == first.book.pk and again.book.extractor == "llm"
    assert llm_server.requests
    assert Mention.objects.filter(
        entity__canonical_name="Port Ashen", mention_type="defines"
    ).exists()
    # Same bytes, same extractor: skipped.
    asked = len(llm_server.requests)
    assert book_ingest(data=BOOK, filename="tales.md", extractor="llm").action == "unchanged"
    assert len(llm_server.requests) == asked
