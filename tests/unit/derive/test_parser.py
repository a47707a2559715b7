"""The reply parser: both formats, every tolerated variation, every rejection, and the
invariant that every `### DERIVE|GATE` header yields a proposal or a diagnostic."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.derive.parser import MAX_REPLY_CHARS, parse_reply
from engine.derive.proposals import Mode, Proposal, ProposalKind, render_proposals

CURRENT = """\
Here is what I found.

### DERIVE auth-is-bottleneck
The authentication service is a potential performance bottleneck.
- Antecedents: auth-jwt-validation, auth-token-refresh
- Mode: ALL
- Label: synchronous validation plus a single refresh thread

### GATE system-production-ready
The system meets the production readiness criteria.
- Antecedents: all-tests-pass, monitoring-configured
- Unless: critical-bug-auth-timeout
- Mode: ANY
- Label: readiness gated on the critical bug
"""

LEGACY = """\
### DERIVE: `db-schema-stable`
The database schema has been stable since the v2 migration.
- **Antecedents**: `db-migration-v2`, `db-no-recent-changes`
- **Label**: no schema change since v2

### GATE (outlist): `release-ok`

Release can proceed.

- **Antecedents**: build-green, docs-done
- **Unless**: blocker-open
- **Label**: gated on blockers
"""


def test_current_format():
    r = parse_reply(CURRENT)
    assert r.blocks == 2 and not r.rejected and r.formats == {"current"}
    a, b = r.proposals
    assert a == Proposal(ProposalKind.DERIVE, "auth-is-bottleneck",
                         "The authentication service is a potential performance bottleneck.",
                         ("auth-jwt-validation", "auth-token-refresh"), (), Mode.ALL,
                         "synchronous validation plus a single refresh thread", 3)
    assert b.kind is ProposalKind.GATE and b.unless == ("critical-bug-auth-timeout",)
    assert b.mode is Mode.ANY and b.line == 9
    assert not r.is_format_failure


def test_legacy_format():
    r = parse_reply(LEGACY)
    assert r.blocks == 2 and not r.rejected and r.formats == {"legacy"}
    a, b = r.proposals
    assert (a.kind, a.id, a.antecedents, a.mode) == (
        ProposalKind.DERIVE, "db-schema-stable", ("db-migration-v2", "db-no-recent-changes"),
        Mode.ALL)
    assert a.label == "no schema change since v2"
    assert (b.kind, b.id, b.text, b.unless) == (
        ProposalKind.GATE, "release-ok", "Release can proceed.", ("blocker-open",))


@pytest.mark.parametrize("variant", [
    pytest.param(CURRENT.replace("\n", "\r\n"), id="crlf"),
    pytest.param(CURRENT.replace("\n", "\r"), id="cr"),
    pytest.param(CURRENT.replace("\n", "   \n"), id="trailing-spaces"),
    pytest.param(CURRENT.replace("\n- ", "\n\n- "), id="blank-lines-between-fields"),
    pytest.param(CURRENT.replace("auth-jwt-validation", "`auth-jwt-validation`")
                 .replace("### DERIVE auth-is-bottleneck", "### DERIVE `auth-is-bottleneck`"),
                 id="backticks-around-ids"),
    pytest.param(CURRENT.replace("Mode: ALL", "Mode: all").replace("Mode: ANY", "Mode: Any"),
                 id="mode-case"),
    pytest.param(CURRENT.replace("- Antecedents:", "- antecedents:"), id="field-name-case"),
    pytest.param(CURRENT.replace("- Label:", "Label:"), id="no-bullet"),
    pytest.param(CURRENT.replace("- Antecedents:", "- **Antecedents:**"), id="bold-field"),
    pytest.param(CURRENT.replace("### DERIVE", "### derive"), id="keyword-case"),
    pytest.param(CURRENT.replace("\n### GATE", "\n---\n### GATE"), id="rule-between-blocks"),
    pytest.param(CURRENT.replace("auth-token-refresh\n", "auth-token-refresh,\n"),
                 id="trailing-comma"),
])
def test_tolerated_variations_parse_the_same(variant):
    expected = [(p.kind, p.id, p.text, p.antecedents, p.unless, p.mode, p.label)
                for p in parse_reply(CURRENT).proposals]
    r = parse_reply(variant)
    assert not r.rejected, r.rejected
    assert [(p.kind, p.id, p.text, p.antecedents, p.unless, p.mode, p.label)
            for p in r.proposals] == expected


def test_mode_defaults_to_all():
    r = parse_reply("### DERIVE x\nText.\n- Antecedents: a, b\n- Label: l\n")
    assert r.proposals[0].mode is Mode.ALL


def test_derive_with_unless_none_has_no_outlist():
    r = parse_reply("### DERIVE x\nText.\n- Antecedents: a, b\n- Unless: none\n- Label: l\n")
    assert r.proposals[0].unless == ()


def test_commentary_after_the_fields_is_ignored():
    r = parse_reply("### DERIVE x\nText.\n- Antecedents: a, b\n- Label: l\nI think this holds.\n")
    assert r.proposals[0].text == "Text." and not r.rejected


def test_multi_line_conclusion_is_joined():
    r = parse_reply("### DERIVE x\nFirst half\nsecond half.\n- Antecedents: a, b\n- Label: l\n")
    assert r.proposals[0].text == "First half second half."


@pytest.mark.parametrize("text, reason", [
    ("### DERIVE x\n- Antecedents: a, b\n- Label: l\n", "no conclusion text"),
    ("### DERIVE x\nText.\n- Label: l\n", "no Antecedents line"),
    ("### DERIVE x\nText.\n- Antecedents: \n- Label: l\n", "Antecedents is empty"),
    ("### DERIVE x\nText.\n- Antecedents: a, b\n", "no Label line"),
    ("### DERIVE x\nText.\n- Antecedents: a, b\n- Label:\n", "Label is empty"),
    ("### DERIVE x\nText.\n- Antecedents: a, b\n- Mode: SOME\n- Label: l\n",
     "Mode must be ALL or ANY"),
    ("### GATE x\nText.\n- Antecedents: a, b\n- Label: l\n", "a GATE needs an Unless line"),
    ("### DERIVE x\nText.\n- Antecedents: a, b\n- Antecedents: c, d\n- Label: l\n",
     "Antecedents given twice"),
    ("### DERIVE\nText.\n- Antecedents: a, b\n- Label: l\n", "no id after ### DERIVE"),
    ("### DERIVE two words\nText.\n- Antecedents: a, b\n- Label: l\n", "with one id"),
])
def test_rejections_are_diagnosed_with_the_header_line(text, reason):
    r = parse_reply("Intro line.\n" + text)
    assert r.proposals == [] and r.blocks == 1
    (d,) = r.rejected
    assert d.line == 2 and reason in d.reason


def test_one_bad_block_does_not_hide_the_others():
    text = CURRENT + "\n### DERIVE broken\n- Antecedents: a\n"
    r = parse_reply(text)
    assert len(r.proposals) == 2 and len(r.rejected) == 1 and r.blocks == 3


def test_several_problems_in_one_block_are_all_named():
    (d,) = parse_reply("### GATE x\n- Mode: maybe\n").rejected
    for reason in ("no conclusion text", "no Antecedents line", "no Label line",
                   "Mode must be ALL or ANY", "a GATE needs"):
        assert reason in d.reason


@pytest.mark.parametrize("line", ["NO PROPOSALS", "no proposals", "**NO PROPOSALS**",
                                  "`NO PROPOSALS`", "NO PROPOSALS.", "  NO PROPOSALS  "])
def test_no_proposals_line(line):
    r = parse_reply(f"I looked carefully.\n{line}\n")
    assert r.no_proposals and not r.proposals and not r.is_format_failure


def test_no_proposals_inside_a_sentence_is_not_the_marker():
    r = parse_reply("There are NO PROPOSALS worth making, I think.\n")
    assert not r.no_proposals and r.is_format_failure


@pytest.mark.parametrize("text", ["", "   \n\n", None, 12345, "just some prose",
                                  "{\"proposals\": []}", "### DERIVE", "###", "- Antecedents: a",
                                  "\x00\x01\x02 binary", "### GATE (outlist): `"])
def test_garbage_is_diagnosed_never_raised(text):
    r = parse_reply(text)
    assert not r.proposals
    assert r.is_format_failure
    assert r.rejected or r.notes
    assert r.blocks == len(r.rejected)


def test_huge_reply_is_cut_with_a_note():
    filler = "x" * 100 + "\n"
    text = CURRENT + filler * (MAX_REPLY_CHARS // len(filler) + 10)
    r = parse_reply(text)
    assert len(r.proposals) == 2
    assert any("characters" in n.reason for n in r.notes)


def test_echoed_template_is_diagnosed():
    r = parse_reply("### DERIVE <new-belief-id>\n<one-sentence conclusion>\n"
                    "- Antecedents: <existing-id>, <existing-id>\n- Mode: ALL\n- Label: <short>\n")
    # it parses (the id is then refused by validation's id-syntax rule)
    assert r.proposals[0].id == "<new-belief-id>"


# --- property-based ------------------------------------------------------------------
ids = st.from_regex(r"[a-z0-9][a-z0-9._:-]{0,30}", fullmatch=True)
words = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd"),
                                       max_codepoint=0x2FF), min_size=1, max_size=12)
sentences = (st.lists(words, min_size=1, max_size=8).map(lambda ws: " ".join(ws) + ".")
             .filter(lambda t: t.upper() != "NO PROPOSALS."))  # that line is the marker


@st.composite
def proposals(draw):
    kind = draw(st.sampled_from(list(ProposalKind)))
    unless = tuple(draw(st.lists(ids, min_size=1 if kind is ProposalKind.GATE else 0,
                                 max_size=3)))
    return Proposal(
        kind=kind, id=draw(ids), text=draw(sentences),
        antecedents=tuple(draw(st.lists(ids, min_size=1, max_size=5))),
        unless=unless, mode=draw(st.sampled_from(list(Mode))), label=draw(sentences))


def _content(p: Proposal):
    return (p.kind, p.id, p.text, p.antecedents, p.unless, p.mode, p.label)


@given(st.lists(proposals(), max_size=6))
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_rendered_blocks_round_trip(ps):
    r = parse_reply(render_proposals(ps))
    assert not r.rejected
    assert [_content(p) for p in r.proposals] == [_content(p) for p in ps]
    assert r.no_proposals == (not ps)


@st.composite
def mutated(draw):
    text = render_proposals(draw(st.lists(proposals(), min_size=1, max_size=4)))
    chars = list(text)
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "dup-line", "drop-line"]))
        if not chars:
            break
        i = draw(st.integers(0, len(chars) - 1))
        junk = draw(st.sampled_from(["\n", "#", "-", ":", "`", "*", " ", "\r", ",", "x",
                                     "### DERIVE ", "- Mode: ", "NO PROPOSALS", "\x00"]))
        if op == "insert":
            chars[i:i] = list(junk)
        elif op == "delete":
            del chars[i]
        elif op == "replace":
            chars[i] = junk
        else:
            lines = "".join(chars).split("\n")
            j = draw(st.integers(0, len(lines) - 1))
            if op == "dup-line":
                lines.insert(j, lines[j])
            else:
                del lines[j]
            chars = list("\n".join(lines))
    return "".join(chars)


@given(mutated())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_mutated_replies_never_crash_and_nothing_is_dropped(text):
    r = parse_reply(text)
    assert r.blocks == len(r.proposals) + len(r.rejected)
    for p in r.proposals:
        assert p.id and p.text and p.antecedents and p.label
        assert p.kind is not ProposalKind.GATE or p.unless


@pytest.mark.parametrize("line", [
    "- Label:" + " " * 200_000 + "x",
    " " * 200_000 + "x",
    "-" + " " * 200_000 + "x",
    "- **Antecedents" + " " * 200_000 + "x",
    "- " * 100_000 + "x",
    "### DERIVE x" + " " * 200_000 + "y",
])
def test_pathological_lines_parse_in_linear_time(line):
    import time

    start = time.monotonic()
    parse_reply("### DERIVE a\nText.\n" + line + "\n- Antecedents: b, c\n- Label: l\n")
    assert time.monotonic() - start < 2.0


@pytest.mark.parametrize("variant", [
    pytest.param("```markdown\n" + CURRENT + "```\n", id="code-fence"),
    pytest.param(CURRENT.replace("### DERIVE", "## DERIVE").replace("### GATE", "#### GATE"),
                 id="heading-level"),
    pytest.param(CURRENT.replace("### DERIVE", "### 1. DERIVE").replace("### GATE", "### 2) GATE"),
                 id="numbered"),
    pytest.param(CURRENT.replace("### DERIVE", "### **DERIVE**"), id="bold-keyword"),
])
def test_more_tolerated_header_shapes(variant):
    r = parse_reply(variant)
    assert not r.rejected and [p.id for p in r.proposals] == [
        "auth-is-bottleneck", "system-production-ready"]


@pytest.mark.parametrize("heading", ["### Proposal 1 - DERIVE auth-x", "# DERIVE SECTION",
                                     "### New GATE: release-ok"])
def test_a_heading_naming_derive_in_another_shape_is_diagnosed(heading):
    r = parse_reply(f"{heading}\nText.\n- Antecedents: a, b\n- Label: l\n")
    assert r.blocks == 1 and not r.proposals
    assert "is not a `###" in r.rejected[0].reason and r.rejected[0].line == 1


def test_ordinary_headings_are_not_blocks():
    r = parse_reply("## Derived conclusions I considered\n## Gate analysis\nNO PROPOSALS\n")
    assert r.blocks == 0 and r.no_proposals


def test_no_proposals_ends_a_block():
    r = parse_reply("### Gate analysis\nNO PROPOSALS\n")
    assert r.no_proposals and r.blocks == 1 and len(r.rejected) == 1
