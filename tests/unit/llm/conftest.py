"""Fixtures for the chat-model back-ends: a loopback HTTP server that answers like Ollama,
OpenAI and Anthropic, a closed port, and the real local model where installed."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.local_model import local_model_or_skip



class ProviderServer:
    """A loopback HTTP server answering like the providers' APIs; `requests` records each
    (path, decoded JSON body). Set `tags` (Ollama models) and `proposals` (the JSON the fake
    model answers with) per test."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []
        self.tags: list[str] = ["qwen3:8b"]
        self.proposals: dict[str, Any] = {"proposals": []}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.requests.append((self.path, None))
                if self.path == "/api/tags":
                    self._send({"models": [{"name": n, "model": n} for n in server.tags]})
                else:
                    self._send({"error": "not found"}, status=404)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
                server.requests.append((self.path, body))
                text = json.dumps(server.proposals)
                if self.path == "/api/chat":
                    self._send_lines([{
                        "model": body["model"], "created_at": "2025-01-01T00:00:00Z",
                        "message": {"role": "assistant", "content": text},
                        "done": True, "done_reason": "stop", "prompt_eval_count": 21, "eval_count": 9,
                    }])
                elif self.path.endswith("/chat/completions"):
                    self._send({
                        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                        "usage": {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30},
                    })
                elif self.path.endswith("/v1/messages"):
                    tool = body["tools"][0]["name"]
                    self._send({
                        "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                        "content": [{"type": "tool_use", "id": "toolu_1", "name": tool,
                                     "input": server.proposals}],
                        "stop_reason": "tool_use", "stop_sequence": None,
                        "usage": {"input_tokens": 21, "output_tokens": 9},
                    })
                else:
                    self._send({"error": f"no route {self.path}"}, status=404)

            def _send(self, data: Any, status: int = 200) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _send_lines(self, lines: list[Any]) -> None:
                payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ProviderServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def posted(self) -> list[Any]:
        return [body for _, body in self.requests if body is not None]


@pytest.fixture
def provider_server() -> Iterator[ProviderServer]:
    with ProviderServer() as server:
        yield server


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]




@pytest.fixture(scope="session")
def smollm2():
    return local_model_or_skip()
