"""What a derive run is asked to do: the shared run options (engine/stages/run.RunOptions)
and derive's own: what a round shows (budget, domain, topic, one cluster per round) and how
proposals are checked (rules). Derive's one options type: the CLI, the pipeline, accept and
the tests build it, the stage reads it, and engine/derive/run.derive takes it."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.derive.prompt import PromptOptions
from engine.derive.validate import ValidationRules
from engine.stages.run import RunOptions

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler


@dataclass(frozen=True)
class SamplerOptions:
    """Which premises each round shows: the strategy (engine/derive/sampling's STRATEGIES),
    at most `budget` lines, the seed, and for the cluster strategies how many clusters and
    which local embedding model (None: the packaged one)."""

    strategy: str = "alphabetical"
    budget: int = 300
    seed: int | None = None
    n_clusters: int | None = None
    embedding_model: str | None = None

    @property
    def clustered(self) -> bool:
        return self.strategy in ("cluster", "intra-cluster")


@dataclass(frozen=True)
class DeriveOptions(RunOptions):
    budget: int = 300
    domain: str | None = None
    topic: str | None = None
    intra_cluster: bool = False
    rules: ValidationRules = ValidationRules()

    def prompt_options(self) -> PromptOptions:
        return PromptOptions(self.domain, self.topic, self.rules.min_antecedents)

    def all_params(self) -> dict[str, object]:
        """The run's settings, then `params` (the entry point's, as given) over them."""
        base = {
            "budget": self.budget, "domain": self.domain, "topic": self.topic,
            "auto": self.applies, "exhaust": self.exhaust, "max_rounds": self.max_rounds,
            "dry_rounds": self.dry_rounds, "intra_cluster": self.intra_cluster,
            "min_antecedents": self.rules.min_antecedents,
            "out_similarity": self.rules.out_similarity, "max_depth": self.rules.max_depth,
            "timeout": self.calls.timeout, "tries": self.calls.tries,
        }
        return {**base, **self.params}

    def dry_round_limit(self, sampler: "Sampler | None") -> int:
        """Consecutive dry rounds that end the run: as given, else k (the number of
        clusters) when each round shows one cluster, so every cluster gets its chance; 1."""
        if self.dry_rounds is not None:
            return max(1, self.dry_rounds)
        if self.intra_cluster:
            return max(1, getattr(sampler, "n_clusters", None) or 1)
        return 1

    def for_sampler(self, sampler: "Sampler | None") -> DeriveOptions:
        """These options as the run loop takes them: the dry-round limit for this sampler,
        every parameter (the seed the sampler drew, when none was given)."""
        params = self.all_params()
        if params.get("seed") is None and sampler is not None and sampler.seed is not None:
            params["seed"] = sampler.seed
        return replace(self, dry_rounds=self.dry_round_limit(sampler), params=params)
