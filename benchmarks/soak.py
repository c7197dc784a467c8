"""Soak benchmark: many short scenarios at once while processes are killed, resumed to the end.

It plays a suite of short scenarios (`soak_ledger.short_suite`, about 15 s each
with the `silent` model) with ``floorbench run --concurrency N --retries K``,
as a user would (the CLI, in a process group of its own), while a chaos loop
SIGKILLs, spread over the run:

- **local** mode: a playing model process (``--kills``), the runner's managed
  LiveKit server (``--server-kills``; the runner restarts the server itself)
  and the runner itself (``--runner-kills``: SIGKILL mid-scenario, as the OOM
  killer or a reboot would; nothing is finalised, the next session resumes);
- **dispatch** mode: two local LiveKit nodes on one Redis and two
  ``floorbench worker`` processes (one per node); a playing model process,
  worker 1 mid-scenario (``--worker-kills``), worker 1 mid-publish
  (``--publish-kills``: it runs through `soak_worker`, whose publish pauses
  after each file it moves, and is killed while ``OUT/<id>/`` holds part of
  its attempt; it is started again a few seconds later after either kill) and
  the runner (``--runner-kills``: its workers play on, and the next session
  settles what they left in flight).

Whenever `floorbench run` ends with scenarios not completed (a killed model's
scenario fails as `model_crashed`, which `--retries` does not retry: it is the
model's result; a killed runner leaves its scenarios in progress), the soak
runs the same command again with the same ``--out`` until every scenario is
completed (at most ``--sessions`` invocations). Then it audits the run folder
(`soak_ledger.audit`: the books, and every completed scenario's files against
its meta.json — WAV lengths, frame logs, turns inside the audio) and prints one
JSON line per mode and a table: completed, failed-then-retried, lost (must be
0), duplicated (must be 0), inconsistent (must be 0), wall time, attempts per
scenario, timing verdicts, what each kill did, and processes left behind
(must be 0).

Every process it starts runs in its own process group and dies with it (also
on Ctrl-C or SIGTERM); everything listens on 127.0.0.1.

    flock /tmp/live.lock nice -n 5 .venv/bin/python benchmarks/soak.py --scenarios 200 --mode both
    .venv/bin/python benchmarks/soak.py --scenarios 24 --kills 3 --server-kills 1 --worker-kills 1 --runner-kills 1
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak_ledger import audit, short_suite

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.run import resume
from floorbench.records import read_meta
from floorbench.scenarios.validate import load_suite
from floorbench.transports.server import LiveKitCluster, die_with_parent

ROOT = Path(__file__).resolve().parents[1]
MODEL_CHILD = "floorbench.pipelines.room.model_participant"
PLAYING_S = 3.0
"""a model process is killed only once it has run this long (its scenario plays)"""
SCENARIO_WALL_S = 22.0
"""a short scenario's wall time with its room set up, for spreading the kills over the run"""


class Processes:
    """Every process the soak starts: each in a process group of its own, all stopped on exit."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[bytes]] = []
        self.seen: dict[int, float] = {}
        """pid → create time of every process started or killed here (and their children seen)"""

    def spawn(self, argv: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """From the main thread only: the child's death signal is tied to the thread that started it."""
        with log.open("ab") as f:
            proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdout=f,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        self.started.append(proc)
        self.note(proc.pid)
        return proc

    def note(self, pid: int) -> None:
        with contextlib.suppress(psutil.Error):
            self.seen.setdefault(pid, psutil.Process(pid).create_time())

    def stop(self, proc: subprocess.Popen[bytes], grace_s: float) -> None:
        """SIGTERM to the group (a runner marks its scenarios interrupted), then SIGKILL."""
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop_all(self) -> None:
        for proc in reversed(self.started):
            self.stop(proc, 20.0)

    def leftover(self, wait_s: float = 15.0) -> list[str]:
        """Processes started here (or their children seen) still alive after everything stopped."""
        deadline = time.monotonic() + wait_s
        while True:
            alive = []
            for pid, created in self.seen.items():
                with contextlib.suppress(psutil.Error):
                    p = psutil.Process(pid)
                    if p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE:
                        alive.append(f"{pid} {' '.join(p.cmdline())[:80]}")
            if not alive or time.monotonic() > deadline:
                return alive
            time.sleep(0.5)


@dataclass
class Kill:
    t_s: float
    what: str
    """model, server, runner, worker or publish"""
    pid: int
    scenario_id: str | None = None
    attempt: int | None = None
    folder: str | None = None
    outcome: str | None = None
    """what the killed attempt became (its failure kind), read from the run folder at the end"""
    note: str = ""
    victims: list[tuple[str, int]] = field(default_factory=list)
    """a server or runner kill: the scenarios (and attempts) playing on it"""


@dataclass
class Chaos:
    """Kills spread over the run: one event every `interval_s`, fired once a target is there."""

    events: list[str]
    interval_s: float
    t0: float = field(default_factory=time.monotonic)
    done: list[Kill] = field(default_factory=list)
    restart_worker_at: float | None = None
    server_killed_at: float | None = None
    server_pids: set[int] = field(default_factory=set)
    restarts_s: list[float] = field(default_factory=list)
    """seconds from a server kill until the runner's new server process appeared"""

    def due(self) -> str | None:
        n = len(self.done)
        if n < len(self.events) and time.monotonic() - self.t0 >= self.interval_s * (n + 1):
            return self.events[n]
        return None

    def planned(self) -> Counter[str]:
        return Counter(self.events)

    def fired(self) -> Counter[str]:
        return Counter(k.what for k in self.done)


def kill_plan(model: int, server: int, worker: int, seed: int, runner: int = 0, publish: int = 0) -> list[str]:
    events = ["model"] * model + ["server"] * server + ["worker"] * worker + ["runner"] * runner + ["publish"] * publish
    random.Random(seed).shuffle(events)
    return events


def children(procs: list[subprocess.Popen[bytes]]) -> list[psutil.Process]:
    found = []
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            found += psutil.Process(proc.pid).children(recursive=True)
    return found


def cmdline(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:
        return ""


def model_folders(out: Path) -> dict[int, Path]:
    """pid → the (run or staging) scenario folder whose model.pid names it."""
    found: dict[int, Path] = {}
    for pid_file in [*out.glob("*/model.pid"), *out.glob(f"{dispatch.STAGING}/*/*/model.pid")]:
        with contextlib.suppress(OSError, ValueError):
            found[int(pid_file.read_text())] = pid_file.parent
    return found


def playing_models(
    out: Path, owners: list[subprocess.Popen[bytes]], procs: Processes
) -> list[tuple[int, Path]]:
    """Every model process of ours whose scenario has played for a while, with its scenario folder."""
    folders = model_folders(out)
    found = []
    for p in children(owners):
        if MODEL_CHILD not in cmdline(p):
            continue
        procs.note(p.pid)
        folder = folders.get(p.pid)
        with contextlib.suppress(OSError):
            if folder is not None and time.time() - (folder / "model.pid").stat().st_mtime >= PLAYING_S:
                found.append((p.pid, folder))
    return found


def playing_model(
    out: Path, owners: list[subprocess.Popen[bytes]], procs: Processes
) -> tuple[int, Path] | None:
    """A model process of ours whose scenario has played for a while, with its scenario folder."""
    found = playing_models(out, owners, procs)
    return found[0] if found else None


def kill_model(out: Path, owners: list[subprocess.Popen[bytes]], procs: Processes, t_s: float) -> Kill | None:
    target = playing_model(out, owners, procs)
    if target is None:
        return None
    pid, folder = target
    meta = read_meta(folder)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)  # the model child leads a session of its own
    return Kill(t_s, "model", pid, folder.name, meta.attempt if meta else None, str(folder))


def server_of(runner: subprocess.Popen[bytes] | None, procs: Processes) -> psutil.Process | None:
    if runner is None or runner.poll() is not None:
        return None
    for p in children([runner]):
        if "livekit-server" in cmdline(p):
            procs.note(p.pid)
            return p
    return None


def kill_server(
    runner: subprocess.Popen[bytes] | None, out: Path, procs: Processes, chaos: Chaos, t_s: float
) -> Kill | None:
    """The runner's managed server, while scenarios play on it; the playing ones are its victims."""
    server = server_of(runner, procs)
    if server is None or runner is None or playing_model(out, [runner], procs) is None:
        return None
    folders = model_folders(out)
    playing = [folders[p.pid] for p in children([runner]) if MODEL_CHILD in cmdline(p) and p.pid in folders]
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)
    chaos.server_killed_at, chaos.server_pids = time.monotonic(), chaos.server_pids | {server.pid}
    victims = [(f.name, meta.attempt) for f in playing if (meta := read_meta(f)) is not None]
    return Kill(t_s, "server", server.pid, note=f"rooms playing: {len(playing)}", victims=victims)


def kill_runner(m: Mode, runner: subprocess.Popen[bytes], procs: Processes, t_s: float) -> Kill | None:
    """The runner itself, SIGKILL (the OOM killer, a reboot), while scenarios play; the playing ones are
    its victims. Only the runner: its children go as they would (PDEATHSIG), a worker's play on."""
    if runner.poll() is not None:
        return None
    playing = [folder for _, folder in playing_models(m.out, [runner, *m.workers], procs)]
    if not playing:
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(runner.pid, signal.SIGKILL)
    runner.wait(10)
    victims = [(f.name, meta.attempt) for f in playing if (meta := read_meta(f)) is not None]
    return Kill(t_s, "runner", runner.pid, note=f"rooms playing: {len(playing)}", victims=victims)


def publishing(out: Path, worker: subprocess.Popen[bytes]) -> tuple[str, str, int] | None:
    """(scenario id, token, attempt) of a publish `worker` has begun and not finished: ``OUT/<id>/`` holds some
    of the attempt's files, not yet its meta.json (moved last), and dispatch.json still awaits its token."""
    for state_file in out.glob("*/dispatch.json"):
        folder = state_file.parent
        state = dispatch.read_json(state_file) or {}
        token = state.get("token")
        if state.get("state") != "dispatched" or not isinstance(token, str) or (folder / "meta.json").exists():
            continue
        claim = dispatch.read_json(dispatch.staging(out, token) / "claim.json") or {}
        if str(claim.get("worker", "")).rsplit(":", 1)[-1] != str(worker.pid):
            continue
        if resume.attempt_files(folder):
            return folder.name, token, int(state.get("attempt") or 0)
    return None


def kill_publish(out: Path, worker: subprocess.Popen[bytes], chaos: Chaos, t_s: float) -> Kill | None:
    """Worker 1 (started through soak_worker: its publish pauses after each move) killed mid-publish."""
    found = publishing(out, worker)
    if found is None:
        return None
    sid, token, attempt = found
    with contextlib.suppress(ProcessLookupError):
        os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(10)
    chaos.restart_worker_at = time.monotonic() + 3.0
    moved = len(resume.attempt_files(out / sid))
    return Kill(t_s, "publish", worker.pid, sid, attempt, str(out / sid), note=f"token {token}, {moved} file(s) moved")


def worker_claim(out: Path, worker: subprocess.Popen[bytes]) -> tuple[str, dict[str, Any]] | None:
    """The token and claim of a scenario that `worker` is playing (for a while), if any."""
    for claim in out.glob(f"{dispatch.STAGING}/*/claim.json"):
        info = dispatch.read_json(claim)
        if not info or str(info.get("worker", "")).rsplit(":", 1)[-1] != str(worker.pid):
            continue
        staged = read_meta(claim.parent / str(info.get("scenario_id")))
        accepted = float(info.get("accepted_wall") or time.time())  # the heartbeat moves the file's times
        if staged is not None and staged.schedule and time.time() - accepted >= PLAYING_S:
            return claim.parent.name, info
    return None


def kill_worker(out: Path, worker: subprocess.Popen[bytes], chaos: Chaos, t_s: float) -> Kill | None:
    found = worker_claim(out, worker)
    if found is None:
        return None
    token, info = found
    with contextlib.suppress(ProcessLookupError):
        os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(10)
    chaos.restart_worker_at = time.monotonic() + 3.0
    return Kill(
        t_s,
        "worker",
        worker.pid,
        str(info["scenario_id"]),
        int(info.get("attempt") or 0),
        str(out / dispatch.STAGING / token),
        note=f"token {token}",
    )


def outcome_of(out: Path, scenario_id: str, attempt: int) -> str:
    """What attempt `attempt` of a scenario became (its failure kind, or completed), from the run folder."""
    folder = out / scenario_id
    for p in [folder / "meta.json", *folder.glob("meta.attempt-*.json")]:
        data = dispatch.read_json(p) or {}
        if data.get("attempt") == attempt:
            return str(data.get("failure_kind") or data.get("outcome"))
    return "attempt not on record"


def attempt_outcome(out: Path, kill: Kill) -> str:
    """What the killed attempt (a server kill: every attempt playing on it) became."""
    if kill.victims:
        return "+".join(sorted(outcome_of(out, sid, n) for sid, n in kill.victims))
    if kill.scenario_id is None or kill.attempt is None:
        return "-"
    return outcome_of(out, kill.scenario_id, kill.attempt)


@dataclass
class Mode:
    """One soak: its run folder, the run command, and (dispatch) its workers."""

    name: str
    work: Path
    run_argv: list[str]
    env: dict[str, str]
    session_timeout_s: float
    worker_argv: list[list[str]] = field(default_factory=list)
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def out(self) -> Path:
        return self.work / "run"


def tick(m: Mode, runner: subprocess.Popen[bytes], chaos: Chaos, procs: Processes) -> None:
    """One look: fire the kill that is due if its target is there; restart a killed worker; note the server."""
    t_s = time.monotonic() - chaos.t0
    kind, kill = chaos.due(), None
    if kind == "model":
        kill = kill_model(m.out, [runner, *m.workers], procs, t_s)
    elif kind == "server":
        kill = kill_server(runner, m.out, procs, chaos, t_s)
    elif kind == "runner":
        kill = kill_runner(m, runner, procs, t_s)
    elif kind == "worker" and m.workers and chaos.restart_worker_at is None:
        kill = kill_worker(m.out, m.workers[0], chaos, t_s)
    elif kind == "publish" and m.workers and chaos.restart_worker_at is None:
        kill = kill_publish(m.out, m.workers[0], chaos, t_s)
    if kill is not None:
        chaos.done.append(kill)
        print(
            f"[{m.name} {t_s:6.0f} s] killed {kill.what} {kill.pid} {kill.scenario_id or ''} {kill.note}",
            flush=True,
        )
    if chaos.restart_worker_at is not None and time.monotonic() >= chaos.restart_worker_at:
        m.workers[0] = procs.spawn(m.worker_argv[0], m.work / "worker1.log", m.env)
        chaos.restart_worker_at = None
    if chaos.server_killed_at is not None:
        server = server_of(runner, procs)
        if server is not None and server.pid not in chaos.server_pids:
            chaos.restarts_s.append(time.monotonic() - chaos.server_killed_at)
            chaos.server_killed_at = None


def last_line(log: Path) -> str:
    lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def run_sessions(
    m: Mode, ids: list[str], chaos: Chaos, procs: Processes, max_sessions: int
) -> list[dict[str, Any]]:
    """`floorbench run` with the same --out until every scenario is completed (or `max_sessions` runs)."""
    sessions: list[dict[str, Any]] = []
    for k in range(1, max_sessions + 1):
        if m.out.exists() and not resume.plan(m.out, ids).run:
            break
        t0, log, hung = time.monotonic(), m.work / f"session-{k}.log", False
        runner = procs.spawn(m.run_argv, log, m.env)
        while runner.poll() is None:
            tick(m, runner, chaos, procs)
            if time.monotonic() - t0 > m.session_timeout_s:
                hung = True
                procs.stop(runner, 30.0)
            time.sleep(0.5)
        sessions.append(
            {
                "session": k,
                "rc": runner.returncode,
                "wall_s": round(time.monotonic() - t0, 1),
                "hung": hung,
                "last_line": last_line(log),
            }
        )
        print(
            f"[{m.name}] session {k}: rc {runner.returncode} in {sessions[-1]['wall_s']} s: "
            f"{sessions[-1]['last_line']}",
            flush=True,
        )
    return sessions


def clean_env() -> dict[str, str]:
    """This environment without a LiveKit server's settings: local mode manages its own server."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")
    }


def run_argv(suite: Path, out: Path, args: argparse.Namespace) -> list[str]:
    return [
        sys.executable,
        "-m",
        "floorbench.cli",
        "run",
        "--suite",
        str(suite),
        "--model",
        args.model,
        "--out",
        str(out),
        "--concurrency",
        str(args.concurrency),
        "--retries",
        str(args.retries),
        "--quiet",
    ]


def wait_registered(logs: list[Path], timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not all(p.exists() and "registered as" in p.read_text(errors="replace") for p in logs):
        if time.monotonic() > deadline:
            raise RuntimeError(
                "workers did not register: " + " | ".join(last_line(p) for p in logs if p.exists())
            )
        time.sleep(0.5)


def start_dispatch(m: Mode, suite: Path, args: argparse.Namespace, procs: Processes) -> LiveKitCluster:
    """Two nodes on one Redis (in this process: they die with it), two workers (one per node)."""
    cluster = LiveKitCluster(nodes=2, log_dir=m.work / "cluster")
    conns = cluster.start()
    m.env |= {"LIVEKIT_API_KEY": cluster.api_key, "LIVEKIT_API_SECRET": cluster.api_secret}
    slots = str(max(1, (args.concurrency + 1) // 2))
    # worker 1, the one the chaos kills, publishes slowly when publish kills are planned (benchmarks/soak_worker.py)
    slow = [sys.executable, str(Path(__file__).resolve().parent / "soak_worker.py")]
    m.worker_argv = [
        [
            *(slow if i == 0 and args.publish_kills else [sys.executable, "-m", "floorbench.cli", "worker"]),
            "--suite",
            str(suite),
            "--out-root",
            str(m.work),
            "--model",
            args.model,
            "--livekit-url",
            c.url,
            "--max-jobs",
            slots,
        ]
        for i, c in enumerate(conns)
    ]
    logs = [m.work / f"worker{i + 1}.log" for i in range(2)]
    m.workers = [procs.spawn(argv, log, m.env) for argv, log in zip(m.worker_argv, logs, strict=True)]
    wait_registered(logs)
    m.run_argv += ["--play-on", "workers", "--livekit-url", conns[0].url]
    return cluster


def soak_mode(name: str, suite: Path, ids: list[str], work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One mode's soak, start to audit; every process it started is stopped before it returns."""
    (work / name).mkdir(parents=True, exist_ok=True)
    expected_s = len(ids) * SCENARIO_WALL_S / args.concurrency * (1.6 if name == "dispatch" else 1.0)
    m = Mode(
        name,
        work / name,
        run_argv(suite, work / name / "run", args),
        clean_env(),
        session_timeout_s=expected_s * 2 + 600,
    )
    events = kill_plan(
        args.kills,
        args.server_kills if name == "local" else 0,
        args.worker_kills if name == "dispatch" else 0,
        args.seed,
        runner=args.runner_kills,
        publish=args.publish_kills if name == "dispatch" else 0,
    )
    chaos = Chaos(events, args.interval or expected_s / (len(events) + 1))
    procs, cluster = Processes(), None
    t0 = time.monotonic()
    try:
        if name == "dispatch":
            cluster = start_dispatch(m, suite, args, procs)
        chaos.t0 = t0 = time.monotonic()
        sessions = run_sessions(m, ids, chaos, procs, args.sessions)
        wall = time.monotonic() - t0
    except BaseException as e:  # Ctrl-C, SIGTERM or a failed start: everything stopped, then said so
        stopped(m, procs, cluster)
        if isinstance(e, KeyboardInterrupt):
            print(f"[{name}] interrupted; left over: {procs.leftover()}", flush=True)
        raise
    stopped(m, procs, cluster)
    for kill in chaos.done:
        kill.outcome = attempt_outcome(m.out, kill)
    books = audit(m.out, ids)
    return {
        "mode": name,
        "scenarios": len(ids),
        "concurrency": args.concurrency,
        "retries": args.retries,
        "model": args.model,
        "wall_s": round(wall, 1),
        "sessions": sessions,
        "kills_planned": dict(chaos.planned()),
        "kills_done": dict(chaos.fired()),
        "kill_outcomes": dict(Counter(f"{k.what}->{k.outcome}" for k in chaos.done)),
        "server_restart_s": [round(s, 1) for s in chaos.restarts_s],
        "leftover_processes": procs.leftover(),
        **books.record(),
        "out": str(m.out),
    }


def stopped(m: Mode, procs: Processes, cluster: LiveKitCluster | None) -> None:
    procs.stop_all()
    if cluster is not None:
        cluster.stop()


HEADER = (
    "mode",
    "scenarios",
    "completed",
    "failed then retried",
    "lost",
    "duplicated",
    "inconsistent",
    "sessions",
    "wall s",
    "kills done / planned",
    "attempts per scenario",
    "timing ok / degraded",
    "left over",
)


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        kills = ", ".join(
            f"{k} {r['kills_done'].get(k, 0)}/{n}" for k, n in sorted(r["kills_planned"].items())
        )
        attempts = ", ".join(f"{n}×{c}" for n, c in r["attempts_per_scenario"].items())
        cells = [
            r["mode"],
            r["scenarios"],
            r["completed"],
            r["failed_then_retried"],
            r["lost"],
            r["duplicated"],
            r["inconsistent"],
            len(r["sessions"]),
            f"{r['wall_s']:.0f}",
            kills or "-",
            attempts,
            f"{r['timing'].get('ok', 0)} / {r['timing'].get('degraded', 0)}",
            len(r["leftover_processes"]),
        ]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--scenarios", type=int, default=200, help="short scenarios per mode (rounded up to pairs)"
    )
    ap.add_argument("--kills", type=int, default=10, help="model processes killed mid-scenario, per mode")
    ap.add_argument(
        "--server-kills", type=int, default=2, help="local mode: the runner's LiveKit server killed"
    )
    ap.add_argument("--worker-kills", type=int, default=2, help="dispatch mode: worker 1 killed mid-scenario")
    ap.add_argument("--runner-kills", type=int, default=2, help="the runner SIGKILLed mid-scenario, per mode")
    ap.add_argument(
        "--publish-kills", type=int, default=1, help="dispatch mode: worker 1 killed mid-publish (SIGKILL)"
    )
    ap.add_argument("--mode", choices=("local", "dispatch", "both"), default="both")
    ap.add_argument(
        "--concurrency", type=int, default=2, help="rooms at once (run -j); dispatch: jobs in flight"
    )
    ap.add_argument("--retries", type=int, default=2, help="run --retries")
    ap.add_argument("--model", default="silent", help="a light pipeline model (a process the soak can kill)")
    ap.add_argument("--sessions", type=int, default=10, help="most `floorbench run` invocations per mode")
    ap.add_argument(
        "--interval", type=float, default=None, help="seconds between kills (default: spread over the run)"
    )
    ap.add_argument("--seed", type=int, default=0, help="order of the kills")
    ap.add_argument(
        "--work", type=Path, default=None, help="keep the suite and run folders here (default: a temp dir)"
    )
    args = ap.parse_args()
    if args.concurrency < 2:
        ap.error("--concurrency: a soak runs rooms at once; use 2 or more")
    return args


def main() -> int:
    args = parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="fb-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    suite = work / "suite" if (work / "suite").is_dir() else short_suite(args.scenarios, work)
    ids = [s.scenario_id for s in load_suite(suite).scenarios]
    rows = []
    for name in ("local", "dispatch") if args.mode == "both" else (args.mode,):
        print(
            f"== {name}: {len(ids)} scenarios, -j {args.concurrency}, --retries {args.retries} (work {work})",
            flush=True,
        )
        try:
            rows.append(soak_mode(name, suite, ids, work, args))
        except KeyboardInterrupt:
            print(
                f"soak interrupted in {name} mode; its run folder resumes with the same command", flush=True
            )
            return 130
        print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    return (
        0
        if all(
            r["lost"] == 0 and r["duplicated"] == 0 and r["inconsistent"] == 0 and not r["leftover_processes"]
            for r in rows
        )
        else 1
    )


if __name__ == "__main__":
    sys.exit(main())
