"""A newcomer's commands with nothing started (issue 50): the first command starts the
resident engine by itself; how long each of the first ten commands of the mix a user types
(show, retract, assert, search, show, twice) takes, against ftl-reasons 0.57's `reasons` on
the same network, alternated command by command.

    .venv/bin/python scripts/bench/autostart_bench.py [--real FILE] [--rounds 3]
        [--uri bolt://... (a scratch server it may WIPE; password from NEO4J_PASSWORD)]

The network (default: the held-out data-intensive-applications network of
../shared/data/networks) goes into a memory of the bench's own: a temporary repository and
EEM_HOME, `eem init` there (a local server of its own; with --uri, that server's graph as a
shared memory), never a user's. Each round begins as a fresh shell does: no engine running
(the previous round's is ended), then the ten commands, each a whole process timed from spawn
to exit, with EEM_SERVE unset; `reasons` runs the same command right after. "today" is the
first command with EEM_SERVE=0 (what every command cost before). Output: JSON lines, then a
markdown table of medians over the rounds, with the load.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from mcp_bench import peer_requests, peer_venv, targets  # noqa: E402

HELD_OUT = ROOT.parent / "shared" / "data" / "networks" / "data-intensive-applications-eem.json"
EEM = "import sys; from engine.eem import main; sys.exit(main())"


def say(text: str) -> None:
    print(f"autostart-bench: {text}", file=sys.stderr, flush=True)


def mix(t: dict[str, str]) -> list[list[str]]:
    one = [["show", t["show"]], ["retract", t["single"]], ["assert", t["single"]],
           ["search", *t["words"].split()], ["show", t["show"]]]
    return one + one


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{argv[-3:]} exited {done.returncode}: {done.stderr[-400:]}")
    return seconds


def end_engine(repo: Path, env: dict[str, str]) -> None:
    """No engine for the next round (its memory's server stays up, as a user's would)."""
    done = subprocess.run([sys.executable, "-c", EEM, "serve", "status"], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)
    if "(pid " in done.stdout:
        pid = int(done.stdout.split("(pid ")[1].split(")")[0])
        os.kill(pid, signal.SIGTERM)
        while Path(f"/proc/{pid}").exists():
            time.sleep(0.05)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=HELD_OUT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--uri", help="a scratch server to use (WIPED) instead of a memory's "
                                      "own local server")
    args = parser.parse_args()
    network = json.loads(args.real.read_text())
    t = targets(network)
    venv = peer_venv()
    base = Path(tempfile.mkdtemp(prefix="autostart-bench-"))
    serve = tempfile.mkdtemp(prefix="ab-", dir="/tmp")
    repo = base / "repo"
    repo.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=str(base / "eem-home"), EEM_SERVE_DIR=serve, PYTHONPATH=str(ROOT))
    if args.uri:
        env["NEO4J_PASSWORD"] = os.environ.get("NEO4J_PASSWORD", "")
    off = dict(env, EEM_SERVE="0")
    ours = [sys.executable, "-c", EEM]
    rows: list[dict] = []
    try:
        subprocess.run([*ours, "init", *(["--uri", args.uri] if args.uri else [])], cwd=repo,
                       env=off, check=True, capture_output=True)
        plain, hashed, db = base / "net.json", base / "net-hashed.json", base / "net.db"
        plain.write_text(json.dumps(network))
        subprocess.run([*ours, "reset", "--yes"], cwd=repo, env=off, check=True,
                       capture_output=True)
        subprocess.run([*ours, "import", str(plain)], cwd=repo, env=off, check=True,
                       capture_output=True)
        peer_requests(venv, {"op": "add_hashes", "file": str(plain), "out": str(hashed)},
                      {"op": "import", "file": str(hashed), "db": str(db)})
        theirs = [str(venv / "bin" / "reasons"), "--db", str(db)]
        lines = mix(t)
        say(f"{args.real.name}: {len(network['nodes'])} beliefs; {args.rounds} rounds")
        for rnd in range(args.rounds):
            end_engine(repo, env)
            today = timed([*ours, *lines[0]], repo, off)
            for n, line in enumerate(lines, 1):
                their_line = ["search", " ".join(line[1:])] if line[0] == "search" else line
                ours_s = timed([*ours, *line], repo, env)
                reasons_s = timed([*theirs, *their_line], base, dict(os.environ))
                rows.append(row := {"round": rnd, "n": n, "command": line[0], "ours_s": ours_s,
                                    "reasons_s": reasons_s, "today_first_s": today})
                print(json.dumps(row), flush=True)
    finally:
        subprocess.run([*ours, "serve", "stop"], cwd=repo, env=env, capture_output=True,
                       check=False)
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(serve, ignore_errors=True)
    load = os.getloadavg()
    print(f"\n{args.real.name} ({len(network['nodes'])} beliefs), medians of {args.rounds} "
          f"rounds; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} cores")
    print("| n | command | ours (engine started by the 1st) | reasons 0.57 | ours/reasons |")
    print("|---|---|---|---|---|")
    for n in range(1, 11):
        at = [r for r in rows if r["n"] == n]
        mine = statistics.median(r["ours_s"] for r in at)
        theirs_s = statistics.median(r["reasons_s"] for r in at)
        print(f"| {n} | {at[0]['command']} | {mine:.3f} s | {theirs_s:.3f} s | "
              f"{mine / theirs_s:.2f} |")
    today = statistics.median(r["today_first_s"] for r in rows)
    print(f"\nthe first command with EEM_SERVE=0 (every command before): {today:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
