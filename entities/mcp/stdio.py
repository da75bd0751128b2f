"""The stdio transport with a guard in front: every line the SDK would drop without a
word gets a JSON-RPC error reply, and the server keeps serving.

The SDK's stdio reader turns a line it cannot read into an exception that nobody
answers, so a client waits forever for the reply to its request. Here each line is
checked first: not JSON (or nested too deep for the parser) is a parse error (-32700);
JSON that is no JSON-RPC message, nests deeper than ``MAX_DEPTH`` levels, or carries a
lone surrogate (a string that cannot be encoded back) is an invalid request (-32600).
The reply names the request's id when it can be read (the top-level ``"id"``, even
from a line the parser refused), else ``null`` as JSON-RPC prescribes.
"""

from __future__ import annotations

import json
import re
import sys
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

MAX_DEPTH = 64
# The top-level id of a request line, read before its params (the SDK writes it there).
_ID = re.compile(r'^\s*\{[^{\[]*?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def _request_id(line: str, parsed: object = None) -> int | str | None:
    if isinstance(parsed, dict):
        found = parsed.get("id")
        if isinstance(found, int | str) and not isinstance(found, bool):
            return found if not isinstance(found, str) or not _has_surrogate(found) else None
        return None
    match = _ID.match(line)
    if match is None:
        return None
    try:
        found = json.loads(match.group(1))
    except ValueError:
        return None
    return None if isinstance(found, str) and _has_surrogate(found) else found


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _problem(value: Any) -> str | None:
    """Too deep or a lone surrogate anywhere (keys too), walked without recursion."""
    stack = [(value, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(node, str):
            if _has_surrogate(node):
                return f"a lone surrogate (invalid Unicode) in {path or 'the message'}"
        elif isinstance(node, dict):
            for key, child in node.items():
                if _has_surrogate(key):
                    return f"a lone surrogate (invalid Unicode) in a key of {path or 'the message'}"
                stack.append((child, depth + 1, f"{path}.{key}" if path else key))
        elif isinstance(node, list):
            stack.extend((child, depth + 1, f"{path}[{i}]") for i, child in enumerate(node))
    return None


def line_verdict(line: str) -> types.JSONRPCError | None:
    """The error reply a line deserves, or None when the SDK may read it."""
    try:
        parsed = json.loads(line)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "not JSON"
        return _error(_request_id(line), types.PARSE_ERROR, f"Parse error: the line is {reason}")
    request_id = _request_id(line, parsed)
    problem = _problem(parsed)
    if problem is not None:
        return _error(request_id, types.INVALID_REQUEST, f"Invalid Request: {problem}")
    try:
        types.jsonrpc_message_adapter.validate_python(parsed, by_name=False)
    except Exception:  # noqa: BLE001 - any shape the SDK refuses
        return _error(request_id, types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
    return None


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


class GuardedLines:
    """stdin as the SDK iterates it (lines of text), minus the lines answered here."""

    def __init__(self, source) -> None:
        self.source = source
        self.replies = None
        self.ready = anyio.Event()

    async def __aiter__(self):
        async for line in self.source:
            if not line.strip():
                continue
            verdict = line_verdict(line)
            if verdict is None:
                yield line
                continue
            await self.ready.wait()
            await self.replies.send(SessionMessage(verdict))


async def serve_stdio(server) -> None:
    """Run an ``MCPServer`` on stdin/stdout behind the line guard."""
    stdin = TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    guard = GuardedLines(anyio.wrap_file(stdin))
    async with stdio_server(stdin=guard) as (read_stream, write_stream):
        guard.replies = write_stream
        guard.ready.set()
        lowlevel = server._lowlevel_server  # as MCPServer.run_stdio_async does
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
