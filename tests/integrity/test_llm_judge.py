"""The LLM judge against a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, seed
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from entities.services import entity_store, fact_store
from integrity import services
from integrity.detection import classifier
from integrity.detection.classifier import Verdict
from integrity.llm_judge import judge_pair, parse_answer
from integrity.models import Contradiction
from notifications.models import Notification

# A pair the value rules cannot settle offline (two currencies): the judge is asked.
DOUBTFUL = ("The ticket costs 10 euros.", "The ticket costs 11 dollars.")


class FakeLLM:
    """A tiny /v1/chat/completions endpoint: replies with ``content`` (or ``status``)."""

    def __init__(self) -> None:
        self.content = "{}"
        self.status = 200
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                fake.requests.append({"path": self.path, "body": body})
                if fake.status != 200:
                    payload = {"error": {"message": "model crashed"}}
                else:
                    payload = {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": fake.content},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                data = json.dumps(payload).encode()
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def answer(self, **fields) -> None:
        self.content = json.dumps(fields)


@pytest.fixture
def llm(settings):
    fake = FakeLLM()
    fake.thread.start()
    settings.KGSITE_LLM_BASE_URL = fake.url
    settings.KGSITE_LLM_MODEL = "judge-model"
    settings.KGSITE_LLM_MAX_RETRIES = 0
    settings.KGSITE_LLM_TIMEOUT = 5.0
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def test_a_contradiction_answer_becomes_an_llm_verdict(llm):
    llm.answer(is_contradiction=True, confidence=0.9, explanation="10 EUR is not 11 USD today")
    verdict = judge_pair(*DOUBTFUL)
    assert (verdict.label, verdict.kind, verdict.confidence) == ("contradiction", "llm", 0.9)
    assert verdict.explanation == "10 EUR is not 11 USD today"
    request = llm.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "judge-model"
    user_message = request["body"]["messages"][-1]["content"]
    assert DOUBTFUL[0] in user_message and DOUBTFUL[1] in user_message


def test_a_no_answer_is_compatible(llm):
    llm.answer(is_contradiction=False, confidence=0.7, explanation="same price")
    verdict = judge_pair(*DOUBTFUL)
    assert (verdict.label, verdict.kind) == ("compatible", None)


def test_a_fenced_json_answer_is_accepted(llm):
    llm.content = '```json\n{"is_contradiction": true, "confidence": 1, "explanation": "x"}\n```'
    assert judge_pair(*DOUBTFUL).label == "contradiction"


@pytest.mark.parametrize(
    "content",
    [
        "Yes, they contradict each other.",
        "{'is_contradiction': True, 'confidence': 0.9, 'explanation': 'python, not JSON'}",
        '{"is_contradiction": "yes", "confidence": 0.9, "explanation": ""}',
        '{"is_contradiction": true, "confidence": 1.5, "explanation": ""}',
        '{"is_contradiction": true, "confidence": true, "explanation": ""}',
        '{"is_contradiction": true, "confidence": 0.9, "explanation": 3}',
        '{"confidence": 0.9, "explanation": "missing flag"}',
        '[true, 0.9, "a list"]',
        '{"is_contradiction": true, "confidence": 0.9} and some prose',
        "",
    ],
)
def test_anything_but_the_strict_object_is_no_verdict(llm, content):
    llm.content = content
    assert judge_pair(*DOUBTFUL) is None


def test_a_server_error_is_no_verdict(llm):
    llm.status = 500
    assert judge_pair(*DOUBTFUL) is None
    assert len(llm.requests) == 1  # retries are a setting; here none


def test_an_unreachable_server_is_no_verdict(settings):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings.KGSITE_LLM_BASE_URL = f"http://127.0.0.1:{port}/v1"
    settings.KGSITE_LLM_MAX_RETRIES = 0
    assert judge_pair(*DOUBTFUL) is None


def test_parse_answer_never_evaluates_code():
    assert parse_answer("__import__('os').system('echo hacked')") is None


@pytest.fixture
def ticket(db):
    return entity_store(name="ticket", type="product")[0]


@pytest.fixture
def doubtful(monkeypatch):
    """The pair model is unsure about the doubtful pair (its own verdict, whatever the
    trained weights say today): what the judge is for."""
    real = classifier._model_verdict

    def model_verdict(existing, new, **kwargs):
        if (existing, new) == DOUBTFUL:
            return Verdict("uncertain", "number", 0.45, "Possibly conflicting, please check.")
        return real(existing, new, **kwargs)

    monkeypatch.setattr(classifier, "_model_verdict", model_verdict)


@pytest.fixture
def empty_index(monkeypatch):
    monkeypatch.setattr(services, "similar", lambda text, *, k, min_score: [])


@pytest.mark.django_db
def test_background_check_asks_the_judge_only_when_switched_on(
    llm, ticket, empty_index, settings, doubtful
):
    llm.answer(is_contradiction=True, confidence=0.95, explanation="price: 10 EUR vs 11 USD")
    fact_store(text=DOUBTFUL[0], subject=ticket)
    new = fact_store(text=DOUBTFUL[1], subject=ticket).fact

    settings.KGSITE_LLM_JUDGE = False
    services.fact_check(fact_id=new.pk)
    assert llm.requests == []
    # The model alone is unsure about two currencies: "uncertain", a LOW "possibly
    # conflicting, please check" notification and no Contradiction row.
    assert not Contradiction.objects.exists()
    notice = Notification.objects.get()
    assert notice.urgency == "low" and notice.title.startswith("Possibly conflicting")

    Contradiction.objects.all().delete()
    Notification.objects.all().delete()
    settings.KGSITE_LLM_JUDGE = True
    services.fact_check(fact_id=new.pk)
    assert len(llm.requests) == 1
    contradiction = Contradiction.objects.get()
    assert (contradiction.kind, contradiction.confidence) == ("llm", 0.95)
    assert contradiction.explanation == "price: 10 EUR vs 11 USD"
    assert Notification.objects.get().urgency == "high"


@pytest.mark.django_db
def test_judge_saying_compatible_clears_the_doubt(llm, ticket, empty_index, settings, doubtful):
    settings.KGSITE_LLM_JUDGE = True
    llm.answer(is_contradiction=False, confidence=0.8, explanation="about the same price")
    fact_store(text=DOUBTFUL[0], subject=ticket)
    new = fact_store(text=DOUBTFUL[1], subject=ticket).fact
    services.fact_check(fact_id=new.pk)
    assert not Contradiction.objects.exists()


@pytest.mark.django_db
def test_judge_is_not_asked_when_the_rules_are_sure(llm, ticket, empty_index, settings):
    settings.KGSITE_LLM_JUDGE = True
    fact_store(text="The ticket costs 10 euros.", subject=ticket)
    new = fact_store(text="The ticket costs 20 euros.", subject=ticket).fact
    services.fact_check(fact_id=new.pk)
    assert llm.requests == []
    assert Contradiction.objects.get().kind == "number"


@pytest.mark.django_db
def test_a_failing_judge_leaves_the_models_verdict(llm, ticket, empty_index, settings, doubtful):
    settings.KGSITE_LLM_JUDGE = True
    llm.status = 500
    fact_store(text=DOUBTFUL[0], subject=ticket)
    new = fact_store(text=DOUBTFUL[1], subject=ticket).fact
    result = services.fact_check(fact_id=new.pk)
    # The model's verdict stands: uncertain, sent to a curator.
    assert not Contradiction.objects.exists()
    assert result.uncertain and Notification.objects.get().urgency == "low"


# --- Strict parsing as rules ---------------------------------------------------------


@seed(2461)
@hyp_settings(max_examples=200, deadline=None, derandomize=True)
@given(content=st.text(max_size=200))
def test_parse_answer_never_raises_on_any_text(content):
    verdict = parse_answer(content)
    if verdict is not None:
        assert verdict.label in ("contradiction", "compatible")
        assert 0 <= verdict.confidence <= 1


@seed(2462)
@hyp_settings(max_examples=60, deadline=None, derandomize=True)
@given(
    flag=st.booleans(),
    confidence=st.floats(min_value=0, max_value=1),
    explanation=st.text(max_size=700),
)
def test_every_well_formed_answer_reads_back(flag, confidence, explanation):
    content = json.dumps(
        {"is_contradiction": flag, "confidence": confidence, "explanation": explanation}
    )
    verdict = parse_answer(content)
    assert verdict.label == ("contradiction" if flag else "compatible")
    assert verdict.confidence == confidence
    assert verdict.explanation == " ".join(explanation.split())[:500]


@pytest.mark.parametrize(
    "content",
    [
        '{"is_contradiction": true, "confidence": NaN, "explanation": ""}',
        '{"is_contradiction": true, "confidence": Infinity, "explanation": ""}',
        '{"is_contradiction": true, "confidence": -0.1, "explanation": ""}',
        '{"is_contradiction": true, "confidence": "0.9", "explanation": ""}',
        '{"is_contradiction": true, "confidence": 0.9, "is_contradiction": false}',
        '{"is_contradiction": 1, "confidence": 0.9, "explanation": ""}',
        "null",
        "```json\n```",
    ],
)
def test_an_answer_out_of_range_or_ambiguous_is_no_verdict(content):
    assert parse_answer(content) is None


@pytest.mark.django_db
def test_a_malformed_answer_changes_nothing_and_is_logged(
    llm, ticket, empty_index, settings, doubtful, caplog
):
    settings.KGSITE_LLM_JUDGE = True
    llm.content = '{"is_contradiction": true, "confidence": 0.97, "explanation": "cut off'
    fact_store(text=DOUBTFUL[0], subject=ticket)
    new = fact_store(text=DOUBTFUL[1], subject=ticket).fact
    with caplog.at_level("WARNING", logger="integrity.llm_judge"):
        result = services.fact_check(fact_id=new.pk)
    assert len(llm.requests) == 1
    assert not Contradiction.objects.exists()
    assert result.uncertain and Notification.objects.get().urgency == "low"
    assert any("unusable answer" in r.getMessage() for r in caplog.records)
