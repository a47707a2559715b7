"""The markdown table of a side-by-side benchmark run, with the ours/theirs ratios and the
checks in sentences (see comparison.py)."""
from __future__ import annotations

import json

from comparison_record import Recorder, size_label


def fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1:
        return f"{s * 1000:.3g} ms"
    return f"{s:.3g} s"


def fmt_cell(row: dict | None) -> str:
    if row is None:
        return "-"
    if row["median_s"] is None:
        return "error" if row.get("error") else "-"
    cell = fmt_s(row["median_s"])
    if row["repeat"] > 1:
        cell += f" ({fmt_s(row['min_s'])}–{fmt_s(row['max_s'])})"
    return cell + (" then error" if row.get("error") else "")


def ratio(ours: dict | None, theirs: dict | None) -> str:
    if not ours or not theirs or not ours["median_s"] or not theirs["median_s"]:
        return "-"
    r = ours["median_s"] / theirs["median_s"]
    return f"{r:.0f}×" if r >= 10 else f"{r:.1f}×" if r >= 1 else f"{r:.2f}×"


def markdown(rec: Recorder, machine: dict) -> str:
    out = [f"# Side-by-side benchmark, {machine['started']}", "",
           f"{machine['cpus']} CPUs, load average {machine['load_start']} at the start and "
           f"{machine['load_end']} at the end (1, 5, 15 min); Python {machine['python']}; "
           f"ftl-reasons {machine['peers'].get('ftl-reasons')}, reasonsforge "
           f"{machine['peers'].get('reasonsforge')}; Neo4j at {machine['neo4j_uri']}.",
           "Cells: median (min–max) over the repetitions; ratio = ours / theirs on the median "
           "(> 1: we are slower). changed: beliefs whose label changed (imports: beliefs "
           "imported; verify: labels found wrong).", ""]
    keyed: dict[tuple, dict[str, dict]] = {}
    for row in rec.rows:
        key = (row["mode"], row["workload"], row.get("network") or "synthetic", row["size"])
        keyed.setdefault(key, {})[row["impl"]] = row
    tms_rows = [(k, v) for k, v in keyed.items() if k[0] in ("in-process", "per-command")]
    derive_rows = [(k, v) for k, v in keyed.items() if k[0] == "derive"]
    coverage_rows = [(k, v) for k, v in keyed.items() if k[0] == "coverage"]
    if tms_rows:
        out += ["## Truth maintenance", "",
                "| network | size | mode | workload | ours | ftl-reasons | reasonsforge "
                "| ours/ftl | ours/rf | changed |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for (mode, workload, network, size), impls in tms_rows:
            counts = {i: r["changed"] for i, r in impls.items() if r["changed"] is not None}
            if len({json.dumps(c) for c in counts.values()}) <= 1:
                changed = f"{next(iter(counts.values()), '-')}"
            else:
                changed = " / ".join(f"{i} {c}" for i, c in counts.items()) + " **≠**"
            out.append(f"| {network} | {size_label(size, network)} | {mode} | {workload} | "
                       f"{fmt_cell(impls.get('ours'))} | {fmt_cell(impls.get('ftl-reasons'))} | "
                       f"{fmt_cell(impls.get('reasonsforge'))} | "
                       f"{ratio(impls.get('ours'), impls.get('ftl-reasons'))} | "
                       f"{ratio(impls.get('ours'), impls.get('reasonsforge'))} | {changed} |")
        out.append("")
    if derive_rows:
        out += ["## Derive: one round's prompt from the store (10 rounds)", "",
                "| network | size | strategy | ours | reasonsforge | ours/rf | ours round 1 "
                "| rf round 1 |", "|---|---|---|---|---|---|---|---|"]
        for (_, workload, network, size), impls in derive_rows:
            o, t = impls.get("ours"), impls.get("reasonsforge")
            strategy = workload.removeprefix("prompt_")
            out.append(f"| {network} | {size_label(size, network)} | {strategy} "
                       f"| {fmt_cell(o)} | {fmt_cell(t)} | {ratio(o, t)} | "
                       f"{fmt_s(o and o['first_round_s'])} | {fmt_s(t and t['first_round_s'])} |")
        out.append("")
    if coverage_rows:
        out += ["## Coverage: share of IN premises in at least one of 10 prompts", "",
                "| network | size | strategy | ours | reasonsforge | IN premises |",
                "|---|---|---|---|---|---|"]
        for (_, workload, network, size), impls in coverage_rows:
            o, t = impls.get("ours"), impls.get("reasonsforge")
            pool = o["pool"] if o else t["pool"]
            share = {name: "-" if r is None else format(r["coverage"], ".1%")
                     for name, r in (("ours", o), ("reasonsforge", t))}
            out.append(f"| {network} | {size_label(size, network)} | "
                       f"{workload.removeprefix('coverage_')} | {share['ours']} | "
                       f"{share['reasonsforge']} | {pool} |")
        out.append("")
    if rec.checks:
        out += ["## Checks", ""]
        out += [f"- {describe(c)}" for c in rec.checks]
        out.append("")
    return "\n".join(out)


def describe(c: dict) -> str:
    """One check in a sentence (the JSON line has every field)."""
    kind = c.get("check")
    network = c.get("network", "synthetic")
    where = f"{network} ({size_label(c.get('size', 0), network)})"
    if kind == "labels differ after import":
        why = c.get("our_import_report") or {}
        reasons = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in why.items() if v)
        return (f"labels after import, {where}: {c['impl']} has {c['theirs_in']} IN, ours "
                f"{c['ours_in']}; OUT only in ours: {c['out_only_ours']}, OUT only in theirs: "
                f"{c['out_only_theirs']} (our import report: {reasons or 'nothing'}); e.g. "
                + ", ".join(c.get("examples_out_only_ours", [])[:3]))
    if kind == "changed counts disagree" and "premises" in c:
        return (f"changed counts disagree, {c['workload']} on {where}: "
                + "; ".join(f"{b}: " + ", ".join(f"{i} {n}" for i, n in counts.items())
                            for b, counts in c["premises"].items()))
    if kind == "changed counts disagree":
        return (f"changed counts disagree, {c['mode']} {c['workload']} on {where}: "
                + ", ".join(f"{i} {n}" for i, n in c["counts"].items()))
    if kind in ("failed", "group failed"):
        who = c.get("impl") or c.get("group")
        return f"**{kind}**: {who} {c.get('workload', '')}: {c['error']}"
    return json.dumps(c)
