"""A strict MCP interface: unknown arguments and over-long values are tool errors naming
the parameter as sent; over stdio, a line that is not JSON, a lone surrogate or 5,000
levels of nesting get a JSON-RPC error reply and the server keeps serving (a real
``manage.py mcp_serve`` subprocess, spoken to line by line)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading

import mcp_types
import pytest

from entities import services
from entities.mcp.server import mcp_server_build
from entities.mcp.stdio import line_verdict
from entities.mcp.tools import ToolContext

from .test_mcp import ROOT, call, stdio_env

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(vector_dir):
    kube, _ = services.entity_store(name="Kubernetes", type="cloud")
    services.fact_store(text="Kubernetes restarts failed pods", entities=[kube])
    return mcp_server_build(ToolContext(scope="alpha"))


def test_unknown_arguments_are_an_error_naming_them(server):
    error, text = call(
        server, "search_by_entities", {"entities": ["Kubernetes"], "topK": 1, "matchMode": "all"}
    )
    assert error and "unknown arguments matchMode, topK" in text
    assert "top_k" in text  # the message lists what the tool takes
    error, text = call(server, "facts_list", {"limitt": 3})
    assert error and "limitt" in text


def test_errors_name_the_parameters_in_snake_case(server):
    error, text = call(server, "search_by_entities", {"entities": ["Kubernetes"], "top_k": 99})
    assert error and ": top_k:" in f": {text}" and "topK" not in text
    error, text = call(server, "infer_relationship", {"head": "a", "tail": "b", "top_k": 0})
    assert error and ": top_k:" in f": {text}" and "topK" not in text


def test_the_rest_caps_hold_over_mcp(server):
    from entities.extraction.serializers import ExtractRequestSerializer

    cap = ExtractRequestSerializer().fields["text"].max_length
    error, text = call(server, "extract_entities", {"text": "Kubernetes " * (cap // 10 + 10)})
    assert error and ": text:" in f": {text}" and str(cap) in text
    error, text = call(server, "entity_store", {"name": "N" * 100_000})
    assert error and ": name:" in f": {text}"
    error, text = call(server, "entity_get", {"name": "K" * 100_000})
    assert error and ": name:" in f": {text}"
    error, text = call(server, "recall", {"query": "q" * 20_000})
    assert error and ": query:" in f": {text}"
    error, text = call(server, "search_by_entities", {"entities": [f"e{i}" for i in range(30)]})
    assert error and ": entities:" in f": {text}"
    deep: object = "x"
    for _ in range(50):
        deep = {"a": deep}
    error, text = call(server, "recall_domain", {"tool": "deploy", "arguments": deep})
    assert error and ": arguments:" in f": {text}"
    error, ok = call(server, "entity_get", {"name": "Kubernetes"})
    assert not error and ok["entity"]["canonical_name"] == "Kubernetes"


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        ("this is not json", mcp_types.PARSE_ERROR, None),
        (
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"a": "\\ud800"}}',
            mcp_types.INVALID_REQUEST,
            7,
        ),
        ('{"jsonrpc": "2.0", "id": 8, "params": ' + "[" * 5000 + "]" * 5000 + "}", None, 8),
        ('{"hello": "world"}', mcp_types.INVALID_REQUEST, None),
    ],
)
def test_each_bad_line_has_its_verdict(line, code, request_id):
    verdict = line_verdict(line)
    assert verdict is not None and verdict.id == request_id
    assert verdict.error.code in ((code,) if code else (-32700, -32600))


def test_a_good_line_passes():
    line = '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    assert line_verdict(line) is None


class Stdio:
    """A server subprocess spoken to one JSON-RPC line at a time."""

    def __init__(self, env):
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "mcp_serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(json.loads(raw))

    def send(self, text: str) -> None:
        self.proc.stdin.write(text.encode("utf-8", "surrogatepass") + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 60) -> dict:
        return self.lines.get(timeout=timeout)

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX stdio")
def test_stdio_answers_malformed_lines_and_stays_up(server, tmp_path):
    env = stdio_env(tmp_path, scope=None)
    io = Stdio(env)
    try:
        io.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "probe", "version": "1"},
                    },
                }
            )
        )
        assert io.reply()["id"] == 1
        io.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        io.send("this line is not JSON")
        parse = io.reply()
        assert parse["id"] is None and parse["error"]["code"] == -32700
        # A lone surrogate in a tool's arguments (as a JSON escape).
        io.send(
            '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": '
            '{"name": "facts_list", "arguments": {"kind": "\\ud800"}}}'
        )
        surrogate = io.reply()
        assert surrogate["id"] == 2 and surrogate["error"]["code"] == -32600
        assert "surrogate" in surrogate["error"]["message"]
        # The same as a raw (unencodable) code point in the line itself.
        io.send(
            '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": '
            '{"name": "facts_list", "arguments": {"kind": "\ud800"}}}'
        )
        raw = io.reply()
        assert raw["id"] == 3 and "error" in raw or raw["result"]["isError"]
        deep = "[" * 5000 + "]" * 5000
        io.send(
            '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": '
            '"recall_domain", "arguments": {"tool": "x", "arguments": {"a": ' + deep + "}}}}"
        )
        nested = io.reply()
        assert nested["id"] == 4 and nested["error"]["code"] in (-32700, -32600)
        io.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 5,
                    "method": "tools/call",
                    "params": {"name": "facts_list", "arguments": {"topK": 1, "matchMode": "all"}},
                }
            )
        )
        unknown = io.reply()
        assert unknown["id"] == 5 and unknown["result"]["isError"]
        assert "matchMode, topK" in unknown["result"]["content"][0]["text"]
        io.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 6,
                    "method": "tools/call",
                    "params": {"name": "entity_get", "arguments": {"name": "Kubernetes"}},
                }
            )
        )
        alive = io.reply()
        assert alive["id"] == 6 and not alive["result"].get("isError")
        assert "Kubernetes" in alive["result"]["content"][0]["text"]
    finally:
        io.close()
