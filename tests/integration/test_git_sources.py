"""A memory in a real git work tree, on the real Neo4j: a pin records the commit it was read
at; a commit that moves a pinned paragraph leaves its belief IN and re-pinned by git's diff
(not by finding the quote again), one that edits it makes it stale, a rename is followed;
the installed post-commit hook prints exactly those, and the hooks follow a checkout, a
merge and a rebase without failing them; `sources stale --since REV` lists what
the commits after REV made stale, with `--fail-on-stale` as a CI gate; an existing hook is
kept and chained, and a hook run against another memory writes nothing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import tms
from engine.cli.main import main

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
NOTES = ("# Notes\n"
         "\n"
         "The cache keeps reads fast.\n"
         "It is warmed at start.\n"
         "\n"
         "The queue delivers at least once.\n"
         "Consumers drop duplicates.\n")
OTHER = ("Tokens expire after an hour.\nThey are refreshed on use.\nA refresh needs the old "
         "token.\nRevoked tokens are listed.\nThe list is kept a week.\n")

if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


@pytest.fixture
def repo(tmp_path, monkeypatch, neo4j_settings) -> Path:
    """A git work tree of the test's own with two committed files; the connection settings
    of the test's server in the environment (the hooks inherit them)."""
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database),
                       ("PYTHONPATH", str(ROOT)), ("EEM_SERVE_DIR", str(tmp_path / "none"))):
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    git(work, "init", "-q", "-b", "main")
    git(work, "config", "user.email", "t@example.org")
    git(work, "config", "user.name", "Test")
    (work / "notes.md").write_text(NOTES, encoding="utf-8")
    (work / "auth.md").write_text(OTHER, encoding="utf-8")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "notes")
    return work


def git(folder: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, (args, done.stderr)
    return done


@pytest.fixture
def engine(store, repo, capsys):
    def run(*argv: str, code: int = 0):
        got = main(list(argv))
        out = capsys.readouterr()
        assert got == code, (argv, out.out, out.err)
        return out

    return run


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def pinned(store, bid: str) -> tuple[str, list[int], str, bool | None]:
    b = tms.show(store, bid)[0]
    return b.source, list(b.metadata["lines"]), b.metadata.get("commit"), b.metadata.get("clean")


def add_three(engine) -> None:
    engine("init", "--root", ".")
    engine("add", "cache-fast", "The cache keeps reads fast", "--source", "notes.md",
           "--quote", "The cache keeps reads fast. It is warmed at start.")
    engine("add", "queue-once", "The queue delivers at least once", "--source", "notes.md",
           "--quote", "The queue delivers at least once.")
    engine("add", "tokens-hour", "Tokens expire after an hour", "--source", "auth.md:1")


def move_edit_and_rename(repo: Path) -> None:
    """Three lines above the cache paragraph, which is copied among them (so finding its
    quote again would land on the copy), the queue paragraph edited, auth.md renamed."""
    text = NOTES.replace("# Notes\n", "# Notes\nThe cache keeps reads fast.\nIt is warmed at "
                                      "start.\n\n", 1)
    text = text.replace("The queue delivers at least once.", "The queue delivers exactly once.")
    (repo / "notes.md").write_text(text, encoding="utf-8")
    git(repo, "add", "notes.md")
    git(repo, "mv", "auth.md", "docs-auth.md")


def test_a_pin_records_the_commit_it_was_read_at_and_whether_the_file_was_clean(
        engine, store, repo):
    add_three(engine)
    assert pinned(store, "cache-fast") == ("notes.md", [3, 4], head(repo), True)
    (repo / "draft.md").write_text("Not committed yet.\nDrafts are kept.\n", encoding="utf-8")
    engine("add", "drafts-kept", "Drafts are kept", "--source", "draft.md:2")
    assert pinned(store, "drafts-kept") == ("draft.md", [2, 2], head(repo), False)
    (repo / "draft.md").write_text("Changed.\nDrafts are kept.\n", encoding="utf-8")
    [row] = [r for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]
             if r["id"] == "drafts-kept"]
    assert row["uncommitted"] and row["state"] == "still"
    assert row["now"].endswith("; pinned to uncommitted text")


def test_a_commit_moving_editing_and_renaming_is_followed_by_the_diff(engine, store, repo):
    add_three(engine)
    move_edit_and_rename(repo)
    git(repo, "commit", "-q", "-m", "move, edit, rename")
    rows = {r["id"]: r for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]}
    assert {i: (r["state"], r["new_lines"], r["new_path"]) for i, r in rows.items()} == {
        "cache-fast": ("moved", [6, 7], ""),  # the diff's arithmetic, not the copy at 2-3
        "queue-once": ("gone", None, ""),
        "tokens-hour": ("moved", [1, 1], "docs-auth.md")}
    assert rows["tokens-hour"]["now"] == "renamed to docs-auth.md, lines moved to 1-1 (git diff)"
    done = json.loads(engine("sources", "stale", "--retract", "--json").out)
    assert (done["repinned"], done["retracted"]) == (["cache-fast", "tokens-hour"],
                                                     ["queue-once"])
    assert pinned(store, "cache-fast") == ("notes.md", [6, 7], head(repo), True)
    assert pinned(store, "tokens-hour") == ("docs-auth.md", [1, 1], head(repo), True)
    truths = {b: tms.show(store, b)[0].truth.value for b in rows}
    assert truths == {"cache-fast": "IN", "queue-once": "OUT", "tokens-hour": "IN"}
    assert json.loads(engine("sources", "stale", "--json").out)["beliefs"] == [
        {**rows["queue-once"], "truth": "OUT"}]  # an OUT belief is listed as well


def test_the_post_commit_hook_prints_exactly_what_went_stale_and_what_it_re_pinned(
        engine, store, repo):
    add_three(engine)
    engine("hooks", "install")
    move_edit_and_rename(repo)
    done = subprocess.run(["git", "commit", "-q", "-m", "move, edit, rename"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    printed = (done.stdout + done.stderr).strip().splitlines()
    retract = "python -m engine sources stale --retract"  # the name the hook calls it by
    assert printed == [
        f"eem: this commit left 1 belief stale (`{retract}` takes it down):",
        "  queue-once  notes.md:6-6  lines changed (git diff)",
        "eem: re-pinned 2: cache-fast at notes.md:6-7, "
        "tokens-hour at docs-auth.md:1-1 (renamed from auth.md)"]
    assert pinned(store, "cache-fast") == ("notes.md", [6, 7], head(repo), True)
    assert pinned(store, "tokens-hour") == ("docs-auth.md", [1, 1], head(repo), True)
    assert tms.show(store, "queue-once")[0].truth.value == "IN"  # retracts only if told to
    quiet = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "nothing"], cwd=repo,
                           capture_output=True, text=True, check=False)
    assert quiet.returncode == 0 and (quiet.stdout + quiet.stderr).strip() == ""


def test_hooks_installed_with_retract_take_down_what_went_stale(engine, store, repo):
    add_three(engine)
    engine("add", "reliable", "Delivery is reliable", "--sl", "queue-once")
    engine("hooks", "install", "--retract")
    move_edit_and_rename(repo)
    done = subprocess.run(["git", "commit", "-q", "-m", "edit"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "retracted: queue-once" in done.stdout + done.stderr
    assert {b: tms.show(store, b)[0].truth.value for b in ("queue-once", "reliable")} == {
        "queue-once": "OUT", "reliable": "OUT"}


def test_an_existing_hook_is_kept_chained_and_put_back(engine, store, repo):
    add_three(engine)
    hooks = repo / ".git" / "hooks"
    mine = "#!/bin/sh\necho my own hook ran with \"$@\"\nexit 3\n"
    (hooks / "post-checkout").write_text(mine, encoding="utf-8")
    (hooks / "post-checkout").chmod(0o755)
    alone = subprocess.run(["git", "checkout", "-q", "-b", "alone"], cwd=repo,
                           capture_output=True, text=True, check=False)
    out = engine("hooks", "install").out
    assert f"(the hook there before runs first: {hooks / 'post-checkout.eem-chained'})" in out
    assert (hooks / "post-checkout.eem-chained").read_text(encoding="utf-8") == mine
    engine("hooks", "install")  # again: ours is rewritten, theirs stays chained once
    assert (hooks / "post-checkout.eem-chained").read_text(encoding="utf-8") == mine
    done = subprocess.run(["git", "checkout", "-q", "-b", "other"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert "my own hook ran with" in done.stdout + done.stderr
    assert done.returncode == alone.returncode != 0  # the chained hook's status, as before
    out = engine("hooks", "uninstall").out
    assert f"put back {hooks / 'post-checkout'}" in out
    assert (hooks / "post-checkout").read_text(encoding="utf-8") == mine
    assert not (hooks / "post-commit").exists()
    assert not (hooks / "post-checkout.eem-chained").exists()


def test_a_hook_never_fails_the_git_command_nor_writes_to_another_memory(
        engine, store, repo, tmp_path):
    add_three(engine)
    engine("hooks", "install")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    engine("init", "--root", str(elsewhere))  # the memory now belongs to another folder
    move_edit_and_rename(repo)
    before = pinned(store, "cache-fast")
    done = subprocess.run(["git", "commit", "-q", "-m", "edit"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert (done.stdout + done.stderr).strip() == (
        f"eem: this memory's root {elsewhere} is not in this work tree: nothing checked")
    assert pinned(store, "cache-fast") == before
    env = {**{k: v for k, v in os.environ.items() if k != "EEM_MEMORY"},
           "NEO4J_URI": "bolt://127.0.0.1:1"}  # no server there, and no memory before it
    done = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "down"], cwd=repo,
                          capture_output=True, text=True, check=False, env=env, timeout=120)
    assert done.returncode == 0
    assert (done.stdout + done.stderr).strip().startswith("eem: the stale check did not run: ")


def test_stale_since_lists_what_the_commits_after_a_revision_made_stale(engine, store, repo):
    add_three(engine)
    base = head(repo)
    (repo / "auth.md").write_text(OTHER.replace("an hour", "a day"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "tokens last a day")
    release = head(repo)
    move_edit_and_rename(repo)  # on the way to the work tree: the queue edited
    assert {r["id"]: r["state"] for r in json.loads(engine("sources", "stale", "--json").out)[
        "beliefs"]} == {"cache-fast": "moved", "queue-once": "gone", "tokens-hour": "gone"}
    since = json.loads(engine("sources", "stale", "--since", release, "--json").out)
    assert since["since"] == release
    assert [r["id"] for r in since["beliefs"]] == ["cache-fast", "queue-once"]  # not the
    # tokens: stale since the commit before
    got = json.loads(engine("sources", "stale", "--since", base, "--json").out)["beliefs"]
    assert [r["id"] for r in got] == ["cache-fast", "queue-once", "tokens-hour"]
    engine("sources", "stale", "--since", release, "--fail-on-stale", code=1)
    (repo / "notes.md").write_text("Above.\n" + NOTES, encoding="utf-8")  # only moved
    out = engine("sources", "stale", "--since", release, "--fail-on-stale").out
    assert "lines moved to 4-5 (git diff)" in out  # listed, and no failure: re-pinning is
    # all it takes
    out = engine("sources", "stale", "--since", "no-such-branch", code=2)
    assert out.err.strip().startswith("Error: 'no-such-branch' names no commit")


def test_without_git_the_check_is_by_text_and_since_is_refused(store, tmp_path, monkeypatch,
                                                               neo4j_settings, capsys):
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database)):
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text(NOTES, encoding="utf-8")
    assert main(["add", "cache-fast", "The cache keeps reads fast", "--source", "notes.md",
                 "--quote", "The cache keeps reads fast."]) == 0
    assert "commit" not in tms.show(store, "cache-fast")[0].metadata
    (tmp_path / "notes.md").write_text("New line.\n" + NOTES, encoding="utf-8")
    capsys.readouterr()
    assert main(["sources", "status", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["beliefs"]
    assert (row["state"], row["new_lines"], row["by_git"]) == ("moved", [4, 4], False)
    assert main(["sources", "stale", "--since", "HEAD"]) == 2
    assert "--since needs the memory's root" in capsys.readouterr().err


def hooked(repo: Path, *args: str) -> list[str]:
    """A git command with the hooks installed: it succeeds, and what the hooks printed."""
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return [line for line in (done.stdout + done.stderr).splitlines() if line.startswith(
        ("eem:", "  "))]


def test_the_hooks_follow_checkout_merge_and_rebase(engine, store, repo):
    """Each git command succeeds, and its hook prints what it did to the memory: a checkout
    back re-pins by the diff (a rename followed back), a merge brings the stale paragraph, a
    rebase onto it re-pins what the replayed commit moved and names what the rewrite made
    stale; nothing is retracted."""
    add_three(engine)
    engine("hooks", "install")
    base = head(repo)
    stale = ["eem: {} left 1 belief stale (`python -m engine sources stale --retract` takes "
             "it down):", "  queue-once  notes.md:6-6  lines changed (git diff)"]
    assert hooked(repo, "checkout", "-q", "-b", "feature") == []  # the same commit
    move_edit_and_rename(repo)
    assert hooked(repo, "commit", "-q", "-m", "move, edit, rename")[:2] == [
        stale[0].format("this commit"), stale[1]]

    assert hooked(repo, "checkout", "-q", "main") == [
        "eem: re-pinned 2: cache-fast at notes.md:3-4, tokens-hour at auth.md:1-1 (renamed "
        "from docs-auth.md)"]
    assert pinned(store, "tokens-hour") == ("auth.md", [1, 1], base, True)

    assert hooked(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature") == [
        stale[0].format("this merge"), stale[1],
        "eem: re-pinned 2: cache-fast at notes.md:6-7, tokens-hour at docs-auth.md:1-1 "
        "(renamed from auth.md)"]
    merged = head(repo)
    assert pinned(store, "cache-fast") == ("notes.md", [6, 7], merged, True)

    hooked(repo, "checkout", "-q", "-b", "topic", base)
    (repo / "auth.md").write_text("Intro.\n" + OTHER, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "an intro above the tokens")
    printed = hooked(repo, "rebase", "-q", "main")
    assert "eem: re-pinned 1: tokens-hour at docs-auth.md:2-2" in printed  # the replayed
    # commit's line, the rename followed
    rewrite = printed.index(stale[0].format("this rewrite"))
    assert printed[rewrite + 1] == stale[1]
    assert pinned(store, "tokens-hour") == ("docs-auth.md", [2, 2], head(repo), True)
    assert pinned(store, "cache-fast") == ("notes.md", [6, 7], merged, True)
    assert {b: tms.show(store, b)[0].truth.value for b in (
        "cache-fast", "queue-once", "tokens-hour")} == dict.fromkeys(
        ("cache-fast", "queue-once", "tokens-hour"), "IN")  # retracted only if told to
