"""A real OpenAI-compatible server end to end: llama-cpp-python's own server
(`llama_cpp.server`, the `llm-server` extra; tests/llama_server.py caps a reply's tokens) on
loopback with the SmolLM2 GGUF the project already uses, and one derive round through `--model openai:<name>` with
OPENAI_BASE_URL pointing at it: the real langchain-openai client over real HTTP, the usage
the server reports counted in the round's report. The path users of vLLM, LM Studio and
llama.cpp's server take."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from engine import tms

pytestmark = [pytest.mark.neo4j, pytest.mark.local_model, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ALIAS = "smollm2-135m"
MAX_TOKENS = 200  # per reply (see tests/llama_server.py)
PREMISES = {
    "cache-ttl-60s": "Cache entries expire 60 seconds after they are written.",
    "cache-invalidated-on-write": "A write to a row invalidates the cache entries for that row.",
    "db-replica-lag-5s": "Read replicas lag the primary by up to 5 seconds.",
    "reads-served-from-replica": "Most reads are served from a read replica.",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gguf_or_skip() -> Path:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (the local extra)")
    for module in ("fastapi", "uvicorn", "sse_starlette", "starlette_context",
                   "pydantic_settings"):
        pytest.importorskip(module, reason="the llm-server extra is not installed")
    pytest.importorskip("langchain_openai", reason="the openai extra is not installed")
    from adapters.llm.local import smollm2_path
    from engine.errors import ModelError

    try:
        return smollm2_path()
    except ModelError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    gguf = _gguf_or_skip()
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log = open(log_path, "w", encoding="utf-8")  # llama.cpp logs a lot: a pipe would fill up
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "llama_server.py"), str(gguf), ALIAS, str(port),
         str(MAX_TOKENS)], stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while True:
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=5) as answer:
                models = json.load(answer)
            break
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail("llama_cpp.server did not answer within 180 s")
            time.sleep(1)
    assert [m["id"] for m in models["data"]] == [ALIAS]
    yield base
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


def test_one_derive_round_through_the_openai_client_over_http(llama_server, store,
                                                              neo4j_settings, tmp_path):
    for bid, text in PREMISES.items():
        tms.add(store, bid, text)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NEO4J_", "OPENAI_"))}
    env.update(NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.password or "",
               NEO4J_DATABASE=neo4j_settings.database, OPENAI_BASE_URL=llama_server,
               PYTHONPATH=str(ROOT))
    run = subprocess.run(
        [sys.executable, "-m", "engine.derive", "--model", f"openai:{ALIAS}", "--auto",
         "--budget", "4", "--timeout", "600", "--report-dir", str(tmp_path), "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stdout + run.stderr
    [report_file] = tmp_path.glob("derive-*.json")
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["params"]["model"] == f"openai:{ALIAS}"
    [round_] = report["rounds"]
    # the server's usage, read by langchain-openai from the HTTP response, counted per round
    assert round_["tokens"]["input"] > 100, round_["tokens"]
    assert round_["tokens"]["output"] > 0, round_["tokens"]
    assert report["totals"]["tokens"]["input"] >= round_["tokens"]["input"]
    replies = [r for r in round_["responses"] if r.strip()]
    assert replies, round_["responses"]
    # whatever this tiny model replied was parsed and judged, never taken on trust
    assert tms.verify(store) == []
