"""The parts of a stage's command line that another command runs too: the outside things a
stage is wired to (the model, the embedder, forge's source reader, derive's sampler, ask's
model) and the flags that configure them. The stage CLIs and the pipeline take them from
here (through engine/cli/stage_cli.py), so no CLI module imports another.

Every outside package (adapters/, sentence-transformers, scikit-learn, langchain) is
imported inside the function that needs it, so a command that does not need it never loads
it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cli.support import open_store
from engine.errors import InvalidInput, ModelError
from engine.model import check_id
from engine.stages.calls import default_is_transient
from engine.stages.contract import ModelForRound
from engine.store import Store
from engine.tokens import ModelTokenizer, TokenCounter


# --- argument types ----------------------------------------------------------------------
def _whole_number(text: str, minimum: int, wanted: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "at least 1")


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "0 or more")


def id_list(text: str) -> tuple[str, ...]:
    """`--ids A,B`: belief ids separated by commas, each checked, repeats dropped."""
    ids = tuple(dict.fromkeys(i.strip() for i in text.split(",") if i.strip()))
    if not ids:
        raise argparse.ArgumentTypeError("give belief ids separated by commas")
    try:
        for i in ids:
            check_id(i)
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return ids


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def share(text: str) -> float:
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


# --- the model ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelBinding:
    """What the entry point builds from --model: the engine's only view of the model."""

    model_for_round: ModelForRound
    is_transient: Callable[[BaseException], bool] = default_is_transient
    cost: Callable[[int, int], float | None] | None = None


def _chat_model(args: argparse.Namespace) -> tuple[Any, ModelBinding]:
    """The chat model --model names (adapters.llm, imported here and nowhere else in the
    stages) and the machinery's binding of it."""
    try:
        from adapters.llm import build_chat_model, model_for_round
        from adapters.llm.errors import is_transient
        from adapters.llm.pricing import cost_usd
    except ImportError as e:
        raise ModelError(f"the chat-model back-ends (adapters.llm) cannot be loaded: {e}",
                         model=args.model, exit_code=2) from e
    chat = build_chat_model(args.model, timeout=args.timeout)
    spec = args.model

    def cost(tokens_in: int, tokens_out: int) -> float | None:
        return cost_usd(spec, tokens_in, tokens_out)

    return chat, ModelBinding(model_for_round(spec, chat, structured=args.structured),
                              is_transient, cost)


def build_model(args: argparse.Namespace) -> ModelBinding:
    """The real back-ends for a stage's rounds."""
    return _chat_model(args)[1]


@dataclass(frozen=True)
class AskModel:
    """What the entry point builds from --model for ask: the machinery's binding, the chat
    model itself when it can call tools natively, and its tokenizer when it has one."""

    binding: ModelBinding
    tool_chat: Any = None
    tokenizer: TokenCounter | None = None


def build_ask_model(args: argparse.Namespace, wiring: Wiring) -> AskModel:
    """The real back-ends (one chat model, built once); tests put their own
    `build_ask_model` in wiring.extra."""
    chat, binding = _chat_model(args)  # first: it says when adapters.llm cannot load
    from adapters.llm import split_spec

    scheme, _ = split_spec(args.model)
    natively = scheme not in ("local", "replay") and not args.structured and \
        has_tool_calling(chat)
    tokenizer = local_tokenizer(chat) if scheme == "local" else None
    return AskModel(binding, chat if natively else None, tokenizer)


def has_tool_calling(chat: Any) -> bool:
    """True when the model's class implements bind_tools (BaseChatModel's raises)."""
    from langchain_core.language_models import BaseChatModel

    method = getattr(type(chat), "bind_tools", None)
    return method is not None and method is not BaseChatModel.bind_tools


def local_tokenizer(chat: Any) -> TokenCounter | None:
    """The llama.cpp model's own tokenizer (loading the model, which ask does anyway)."""
    load = getattr(chat, "load", None)
    if load is None:
        return None
    load()
    llama = getattr(chat, "_llama", None)
    if llama is None or not hasattr(llama, "tokenize"):
        return None
    return ModelTokenizer("the local model's own tokenizer (llama.cpp)",
                          lambda text: len(llama.tokenize(text.encode("utf-8"), add_bos=False)))


def ask_backend(model: AskModel, args: argparse.Namespace, wiring: Wiring) -> Any:
    """ask's view of its model (engine/ask/run.AskBackend), for the CLI and the MCP tool."""
    from engine.ask.run import AskBackend
    from engine.stages.calls import CallPolicy

    return AskBackend(
        model.binding.model_for_round, model=args.model, tool_chat=model.tool_chat,
        tokenizer=model.tokenizer, cost=model.binding.cost,
        calls=CallPolicy(timeout=args.timeout, is_transient=model.binding.is_transient,
                         sleep=wiring.extra.get("sleep", time.sleep)))


# --- the wiring --------------------------------------------------------------------------
@dataclass
class Wiring:
    """The outside things a stage command needs; tests swap in fakes. `extra` holds a
    stage's own (ask's model builder, dedup's embedder, ...)."""

    open_store: Callable[[], AbstractContextManager[Store]] = open_store
    build_model: Callable[[argparse.Namespace], ModelBinding] = build_model
    make_sampler: Callable[[argparse.Namespace, Store], Any] | None = None
    make_reader: Callable[[argparse.Namespace], Any] | None = None  # forge's sources
    make_embedder: Callable[[argparse.Namespace], Any] | None = None  # forge's embedder
    stderr: Any = field(default=None)
    extra: dict[str, Any] = field(default_factory=dict)

    def err(self) -> Any:
        return self.stderr or sys.stderr


def embedding_cache_dir() -> Path:
    """Where the file copy of embeddings lives: $XDG_CACHE_HOME/eem-engine/embeddings."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eem-engine" / "embeddings"


def sentence_embedder(model_name: str | None = None) -> Any:
    """The local sentence-transformers model (default all-MiniLM-L6-v2)."""
    from adapters.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model_name)


def vector_cache() -> Any:
    """The file copy of embeddings, beside the store's."""
    from adapters.vector_cache import NpyVectorCache

    return NpyVectorCache(embedding_cache_dir())


# --- derive's sampler (derive and the pipeline) ------------------------------------------
def strategy_of(args: argparse.Namespace) -> str:
    if args.intra_cluster:
        return "intra-cluster"
    if args.cluster:
        return "cluster"
    return "random" if args.sample else "alphabetical"


def make_sampler(args: argparse.Namespace, store: Store, stderr: Any = None) -> Any:
    """The sampling strategy the flags ask for (engine.derive.sampling); the cluster ones get
    embeddings from the store, computed by the local sentence-transformers model where
    missing, and scikit-learn's KMeans (both imported here, only for them)."""
    from engine.derive.sampling import make_sampler as make

    strategy = strategy_of(args)
    vectors = clusterer = None
    if strategy in ("cluster", "intra-cluster"):
        from adapters.clustering import kmeans_clusterer
        from engine.embedding.cache import embedding_source

        stream = stderr or sys.stderr

        def progress(done: int, total: int) -> None:
            if not args.quiet:
                print(f"embeddings: {done}/{total} computed", file=stream, flush=True)

        vectors = embedding_source(store, sentence_embedder(args.embedding_model),
                                   cache=vector_cache(), progress=progress)
        clusterer = kmeans_clusterer()
    return make(strategy, budget=args.budget, seed=args.seed, n_clusters=args.n_clusters,
                vectors=vectors, clusterer=clusterer)


# --- forge's sources (forge and the pipeline) --------------------------------------------
FORGE_OUTPUT = "proposed-premises.md"


def forge_root(args: argparse.Namespace) -> Path:
    """--root; without it the current folder, unless a path given lies outside it: then the
    common folder of the paths given (so `forge /elsewhere/docs` works from anywhere)."""
    if getattr(args, "root", None):
        return Path(args.root).resolve()
    here = Path.cwd().resolve()
    given = [Path(p).resolve() for p in getattr(args, "paths", None) or ()]
    if all(p.is_relative_to(here) for p in given):
        return here
    return Path(os.path.commonpath([p if p.is_dir() else p.parent for p in given]))


def forge_own_files(args: argparse.Namespace) -> tuple[str, ...]:
    """Gitignore patterns for what forge itself writes under the root (the proposals file,
    the reports folder), so a later run does not read them as sources."""
    root = forge_root(args)
    out = []
    for path, folder in ((getattr(args, "output", None) or FORGE_OUTPUT, False),
                         (getattr(args, "report_dir", None) or "reports", True)):
        try:
            rel = Path(path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        out.append("/" + rel + ("/" if folder else ""))
    return tuple(out)


def make_reader(args: argparse.Namespace) -> Any:
    from adapters.sources.reader import FileSourceReader
    from adapters.sources.walk import Filters

    exclude = tuple(getattr(args, "exclude", None) or ()) + forge_own_files(args)
    return FileSourceReader(
        forge_root(args), Filters(tuple(getattr(args, "include", None) or ()), exclude,
                                 gitignore=not getattr(args, "no_gitignore", False)),
        max_bytes=getattr(args, "max_bytes", 2_000_000),
        chunk_tokens=getattr(args, "chunk_tokens", 600))


def make_embedder(args: argparse.Namespace) -> Any:
    """all-MiniLM-L6-v2 when the embeddings extra is installed (nearest beliefs in the prompt,
    the --similar rule); None with --no-embeddings or without the extra."""
    if getattr(args, "no_embeddings", False):
        return None
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        return None
    return sentence_embedder()


def domain_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup,
                about: str = "what the network is about") -> None:
    """`--domain TEXT`, which the prompt passes on to the model."""
    p.add_argument("--domain", metavar="TEXT", help=f"tell the model {about}")


def embedding_model_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    p.add_argument("--embedding-model", default=None, metavar="NAME",
                   help="a local sentence-transformers model (default all-MiniLM-L6-v2)")


def root_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    p.add_argument("--root", default=None, metavar="DIR",
                   help="source paths are stored relative to DIR (default: the current folder, "
                        "or the common folder of PATHS when one lies outside it)")


def premise_check_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--similar", type=share, default=0.92, metavar="C",
                   help="skip a premise whose claim has cosine similarity >= C to an existing "
                        "belief (a likely duplicate; default 0.92; needs embeddings)")
    g.add_argument("--max-claim-chars", type=positive_int, default=300, metavar="N",
                   help="skip a claim longer than N characters (default 300)")
    g.add_argument("--no-embeddings", action="store_true",
                   help="no nearest beliefs in the prompt and no --similar rule")


def source_flags(p: argparse.ArgumentParser) -> None:
    """The flags that say which files are read, how they are cut, and how premises are
    checked (forge and the pipeline)."""
    src = p.add_argument_group("sources")
    root_flag(src)
    src.add_argument("--include", action="append", metavar="GLOB",
                     help="only files matching this gitignore-style glob (repeatable)")
    src.add_argument("--exclude", action="append", metavar="GLOB",
                     help="never files matching this glob (repeatable)")
    src.add_argument("--no-gitignore", action="store_true", help="ignore .gitignore files")
    src.add_argument("--tags", type=_access_tags, metavar="TAGS",
                     help="access tags every premise forged from these sources carries "
                          "(comma-separated, e.g. hr,finance)")
    src.add_argument("--max-bytes", type=positive_int, default=2_000_000, metavar="N",
                     help="skip files larger than N bytes (default 2000000)")
    src.add_argument("--chunk-tokens", type=positive_int, default=600, metavar="N",
                     help="chunk budget in tokens, about 4 characters each (default 600)")
    prompt = p.add_argument_group("forge prompt")
    prompt.add_argument("--max-premises", type=positive_int, default=6, metavar="N",
                        help="at most N premises per chunk (default 6)")
    domain_flag(prompt, "what the files are about")
    premise_check_flags(p)


def _access_tags(text: str) -> tuple[str, ...]:
    from engine.errors import InvalidInput
    from engine.tms.access import parse_tags

    try:
        return parse_tags(text, field="tags")
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def forge_stage_factory(args: argparse.Namespace, reader: Any, embedder: Any
                        ) -> Callable[[list[Any]], Any]:
    """The ForgeStage of a plan's pending chunks, as the flags configure it."""
    from engine.clock import now_iso
    from engine.forge.prompt import PromptOptions
    from engine.forge.stage import ForgeSettings, ForgeStage
    from engine.forge.validate import ForgeRules

    settings = ForgeSettings(PromptOptions(getattr(args, "max_premises", 6),
                                           getattr(args, "domain", None)),
                             ForgeRules(args.max_claim_chars, args.similar),
                             getattr(args, "tags", None) or ())
    return lambda plan: ForgeStage(plan, reader, now_iso, settings, embedder)
