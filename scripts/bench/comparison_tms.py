"""The truth-maintenance workloads: in-process (library calls), per-command (the command
lines, start-up included), and the peers' import without their hashes (see comparison.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from comparison_bench import Bench
from comparison_record import Samples, record_group, rotated, say, size_label
from comparison_sides import copy_db
from synthetic import HUB, generate

from engine import tms


def in_process(bench: Bench, path: Path, size: int, single: str) -> None:
    reps, warmup = bench.args.repeat, bench.args.warmup
    failed: dict[str, str] = {}
    imports = {i.name: Samples() for i in bench.impls}
    for rep in range(warmup + reps):
        say(f"in-process import {size_label(size)}, "
            + (f"warm-up {rep + 1}" if rep < warmup else
               f"repetition {rep - warmup + 1}/{reps}"))
        for impl in rotated(bench.impls, rep):
            target = imports[impl.name] if rep >= warmup else Samples()
            bench.attempt(failed, impl.name, "import",
                          lambda impl=impl, t=target: t.add(*impl.import_file(path)))
    record_group(bench.rec, "import", "in-process", size, imports, failed)
    compare_labels(bench, size, "synthetic", failed)

    names = ("retract_hub", "assert_hub", "retract_single_dependent")
    ops = {w: {i.name: Samples() for i in bench.impls} for w in names}

    def sequence(impl, timed_rep: bool) -> None:
        for workload, op, bid in ((names[0], impl.retract, HUB),
                                  (names[1], impl.assert_, HUB),
                                  (names[2], impl.retract, single)):
            (ops[workload][impl.name] if timed_rep else Samples()).add(*op(bid))
        impl.assert_(single)

    for rep in range(warmup + reps):
        say(f"in-process retract/assert {size_label(size)}, "
            + (f"warm-up {rep + 1}" if rep < warmup else
               f"repetition {rep - warmup + 1}/{reps}"))
        for impl in rotated(bench.impls, rep):
            bench.attempt(failed, impl.name, "retract/assert",
                          lambda impl=impl, t=rep >= warmup: sequence(impl, t))
    for workload, samples in ops.items():
        record_group(bench.rec, workload, "in-process", size, samples, failed)

    checks = {i.name: Samples() for i in bench.impls}
    for rep in range(warmup + reps):
        for impl in rotated(bench.impls, rep):
            target = checks[impl.name] if rep >= warmup else Samples()
            bench.attempt(failed, impl.name, "verify",
                          lambda impl=impl, t=target: t.add(*impl.verify()))
    record_group(bench.rec, "verify", "in-process", size, checks, failed)


def compare_labels(bench: Bench, size: int, network: str, failed: dict[str, str]) -> None:
    labels = {}
    for impl in bench.impls:
        bench.attempt(failed, impl.name, "labels",
                      lambda impl=impl: labels.__setitem__(impl.name, impl.labels()))
    if "ours" not in labels:
        return
    ours_out = set(labels["ours"]["out"])
    for impl in bench.peers:
        if impl not in labels:
            continue
        theirs_out = set(labels[impl]["out"])
        if ours_out != theirs_out:
            fields = dict(check="labels differ after import", network=network, size=size,
                          impl=impl, ours_in=len(labels["ours"]["in"]),
                          theirs_in=len(labels[impl]["in"]),
                          out_only_ours=len(ours_out - theirs_out),
                          out_only_theirs=len(theirs_out - ours_out),
                          examples_out_only_ours=sorted(ours_out - theirs_out)[:8],
                          examples_out_only_theirs=sorted(theirs_out - ours_out)[:8])
            report = bench.ours.report
            if report is not None:
                fields["our_import_report"] = {
                    "circular_support": len(report.circular_support),
                    "stale": len(report.stale),
                    "retractions_kept": len(report.retractions_kept),
                    "undetermined": len(report.undetermined),
                    "self_listed": len(report.self_listed)}
            bench.rec.check(**fields)


def per_command(bench: Bench, path: Path, size: int, single: str) -> None:
    reps = bench.args.repeat_cli
    base = {impl: str(bench.workdir / f"{impl}-cli-base.db") for impl in bench.peers}
    work = {impl: str(bench.workdir / f"{impl}-cli-work.db") for impl in bench.peers}
    names = [i.name for i in bench.impls]
    failed: dict[str, str] = {}

    imports = {n: Samples() for n in names}

    def import_once(name: str) -> None:
        if name == "ours":
            bench.ours.wipe()
            seconds, report = bench.commands.ours("import", str(path))
            bench.ours.loaded, bench.ours.report = str(path), None
            imports[name].add(seconds, report["beliefs"])
        else:
            copy_db("/nonexistent", base[name])  # removes the old files
            seconds, out = bench.commands.theirs(name, base[name], "import-json", str(path))
            found = re.search(r"Imported (\d+) nodes", out)
            imports[name].add(seconds, int(found.group(1)) if found else None)

    for rep in range(reps):
        say(f"per-command import {size_label(size)}, repetition {rep + 1}/{reps}")
        for name in rotated(names, rep):
            bench.attempt(failed, name, "import", lambda name=name: import_once(name))
    record_group(bench.rec, "import", "per-command", size, imports, failed)

    steps = (("retract_hub", "retract", HUB), ("assert_hub", "assert", HUB),
             ("retract_single_dependent", "retract", single))
    ops = {w: {n: Samples() for n in names} for w, _, _ in steps}

    def sequence(name: str) -> None:
        if name == "ours":
            for workload, verb, bid in steps:
                seconds, change = bench.commands.ours(verb, bid)
                ops[workload][name].add(seconds, sorted(change["went_in"]
                                                        + change["went_out"]))
            tms.assert_belief(bench.ours.store, single)
        else:
            copy_db(base[name], work[name])
            for workload, verb, bid in steps:
                seconds, out = bench.commands.theirs(name, work[name], verb, bid)
                ops[workload][name].add(seconds, bench.commands.changed_in(out))

    for rep in range(reps):
        say(f"per-command retract/assert {size_label(size)}, repetition {rep + 1}/{reps}")
        for name in rotated(names, rep):
            bench.attempt(failed, name, "retract/assert", lambda name=name: sequence(name))
    for workload, samples in ops.items():
        record_group(bench.rec, workload, "per-command", size, samples, failed)

    checks = {n: Samples() for n in names}

    def verify_once(name: str) -> None:
        if name == "ours":
            seconds, result = bench.commands.ours("verify", ok=(0, 1))
            checks[name].add(seconds, len(result["mismatches"]))
        else:
            copy_db(base[name], work[name])
            seconds, out = bench.commands.theirs(name, work[name], "propagate")
            checks[name].add(seconds, bench.commands.updated_in(out))

    for rep in range(reps):
        for name in rotated(names, rep):
            bench.attempt(failed, name, "verify", lambda name=name: verify_once(name))
    record_group(bench.rec, "verify", "per-command", size, checks, failed)


def unhashed(bench: Bench) -> None:
    n = bench.args.unhashed_size
    data = generate(n)
    raw = bench.workdir / f"synthetic-{n}-unhashed.json"
    raw.write_text(json.dumps(data), encoding="utf-8")
    samples = {i.name: Samples() for i in bench.impls}
    failed: dict[str, str] = {}
    say(f"import without the peers' hashes, {size_label(2 * n)}, once each")
    for impl in bench.impls:
        bench.attempt(failed, impl.name, "import",
                      lambda impl=impl: samples[impl.name].add(*impl.import_file(raw)))
    record_group(bench.rec, "import_without_peer_hashes", "in-process", len(data["nodes"]),
                 samples, failed)
