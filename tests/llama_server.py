"""llama-cpp-python's OpenAI-compatible server for the end-to-end test, built as
`python -m llama_cpp.server` builds it (`llama_cpp.server.app.create_app`), with one addition:
a cap on the tokens of a reply whose request names none. llama.cpp's own server has that cap
(`--n-predict`); llama-cpp-python's generates until the context is full, which a 135M model
asked for a long format readily does, taking minutes on a busy CPU.

    python tests/llama_server.py MODEL.gguf ALIAS PORT MAX_TOKENS
"""
from __future__ import annotations

import json
import sys


class CapMaxTokens:
    """ASGI middleware: a chat completion request without max_tokens gets `cap`."""

    def __init__(self, app, cap: int) -> None:
        self.app, self.cap = app, cap

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].endswith("/chat/completions"):
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        request = json.loads(body or b"{}")
        if request.get("max_tokens") is None:
            request["max_tokens"] = self.cap
        body = json.dumps(request).encode()
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        scope = dict(scope, headers=headers + [(b"content-length", str(len(body)).encode())])
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


def main() -> None:
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    model, alias, port, cap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    app = create_app(server_settings=ServerSettings(host="127.0.0.1", port=port),
                     model_settings=[ModelSettings(model=model, model_alias=alias, n_ctx=3072,
                                                   n_threads=2, verbose=False)])
    uvicorn.run(CapMaxTokens(app, cap), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
