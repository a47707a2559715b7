"""The real networks (../shared/data/networks/*.json, skipped when absent): import, labels
compared, random premise retractions, and the derive workload (see comparison.py)."""
from __future__ import annotations

import json
import random

from comparison_bench import Bench
from comparison_derive import SEED, derive
from comparison_record import Samples, record_group, rotated, say
from comparison_sides import ROOT
from comparison_tms import compare_labels

NETWORKS = ROOT.parent / "shared" / "data" / "networks"
REAL_RETRACTIONS = 20


def real(bench: Bench) -> None:
    files = sorted(NETWORKS.glob("*.json")) if NETWORKS.is_dir() else []
    if not files:
        bench.rec.line({"skipped": f"real networks: none at {NETWORKS}"})
        return
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        size = len(data["nodes"])
        network = path.stem
        failed: dict[str, str] = {}
        reps = bench.args.repeat_real
        imports = {i.name: Samples() for i in bench.impls}
        for rep in range(reps):
            say(f"real {network}: import, repetition {rep + 1}/{reps}")
            for impl in rotated(bench.impls, rep):
                bench.attempt(failed, impl.name, "import",
                              lambda impl=impl: imports[impl.name].add(*impl.import_file(path)))
        record_group(bench.rec, "import", "in-process", size, imports, failed,
                     network=network)
        compare_labels(bench, size, network, failed)

        premises = sorted(i for i, n in data["nodes"].items()
                          if not n.get("justifications") and n.get("truth_value") == "IN")
        chosen = random.Random(SEED).sample(premises, min(REAL_RETRACTIONS, len(premises)))
        say(f"real {network}: {len(chosen)} random premise retractions")
        retractions = {i.name: Samples() for i in bench.impls}
        per_premise: dict[str, dict[str, int]] = {}

        def retract_and_restore(impl, bid: str) -> None:
            seconds, changed = impl.retract(bid)
            retractions[impl.name].add(seconds, len(changed))
            per_premise.setdefault(bid, {})[impl.name] = len(changed)
            impl.assert_(bid)

        for k, bid in enumerate(chosen):
            for impl in rotated(bench.impls, k):
                bench.attempt(failed, impl.name, "retract_random_premise",
                              lambda impl=impl, bid=bid: retract_and_restore(impl, bid))
        for name, samples in retractions.items():
            error = {"error": failed[name]} if name in failed else {}
            if samples.seconds or error:
                bench.rec.measurement("retract_random_premise", "in-process", size, name,
                                      samples.seconds, sum(samples.changed),
                                      network=network, premises=len(samples.seconds),
                                      **error)
        differing = {b: c for b, c in per_premise.items() if len(set(c.values())) > 1}
        if differing:
            bench.rec.check(check="changed counts disagree",
                            workload="retract_random_premise", mode="in-process",
                            network=network, size=size, premises=differing)
        if "ours" not in failed:
            derive(bench, path, size, network, "model")
