"""``spadegym serve`` under load: 64 concurrent OpenEnv sessions stepping, on 127.0.0.1 only.

Starts ``spadegym serve`` as its own process, then runs bounded phases with OpenEnv's async
client (``SpadeEnvClient``):

1. steps: ``--sessions`` sessions at once, each playing ``--steps`` replies (resetting when an
   episode ends); the client times every step.
2. churn: ``--sessions`` clients at once, each opening ``--churn`` sessions one after another
   (connect, reset, one step, close).
3. vanish, ``--vanish`` rounds: ``--sessions`` sessions reset, then their sockets are cut
   without a close frame; the server's resident memory (with its sandbox workers) is read
   after each round: it must stay flat, as the server releases what the clients left.

First, for scale, the same instances stepped in-process with ``EnvBatch`` (no server).

Prints JSON lines:
  {"bench": "envbatch_baseline", "instances": 64, "steps_per_s": ...}
  {"bench": "serve_steps", "sessions": 64, "steps": N, "steps_per_s": ..., "p50_ms", "p99_ms"}
  {"bench": "serve_sessions", "sessions": N, "sessions_per_s": ..., "p99_session_ms": ...}
  {"bench": "serve_memory", "rss_mb_after_steps", "rss_mb_after_churn", "rss_mb_after_vanish"}
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

ENV_ID = "spade/TankerRoute-v0"
REPLY = "\\boxed{wait}"  # not a move: the episode goes on until its turn limit


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (the sandbox workers), in MiB."""
    total = 0
    pids = [pid]
    try:
        children = subprocess.run(
            ["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024, 1)


def envbatch_baseline(instances: int, workers: int, rounds: int = 50) -> dict:
    import spadegym

    with spadegym.EnvBatch([ENV_ID] * instances, num_workers=workers, seed=0) as batch:
        batch.reset(seed=0)
        started = time.perf_counter()
        for _ in range(rounds):
            batch.step([REPLY] * instances)
        elapsed = time.perf_counter() - started
    return {
        "bench": "envbatch_baseline",
        "instances": instances,
        "workers": workers,
        "steps_per_s": round(instances * rounds / elapsed, 1),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def steps_phase(url: str, sessions: int, steps: int) -> dict:
    from spadegym.integrations.openenv import SpadeAction, SpadeEnvClient

    latencies: list[float] = []

    async def one(k: int) -> None:
        async with SpadeEnvClient(base_url=url, message_timeout_s=120) as env:
            result = await env.reset(seed=k)
            for _ in range(steps):
                if result.done:
                    result = await env.reset()
                started = time.perf_counter()
                result = await env.step(SpadeAction(reply=REPLY))
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(one(k) for k in range(sessions)))
    elapsed = time.perf_counter() - started
    return {
        "bench": "serve_steps",
        "sessions": sessions,
        "steps": len(latencies),
        "seconds": round(elapsed, 2),
        "steps_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1e3, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1e3, 2),
    }


async def churn_phase(url: str, clients: int, per_client: int) -> dict:
    from spadegym.integrations.openenv import SpadeAction, SpadeEnvClient

    durations: list[float] = []

    async def one(k: int) -> None:
        for j in range(per_client):
            started = time.perf_counter()
            async with SpadeEnvClient(base_url=url, message_timeout_s=120) as env:
                await env.reset(seed=k * per_client + j)
                await env.step(SpadeAction(reply=REPLY))
            durations.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(one(k) for k in range(clients)))
    elapsed = time.perf_counter() - started
    return {
        "bench": "serve_sessions",
        "sessions": len(durations),
        "concurrent": clients,
        "sessions_per_s": round(len(durations) / elapsed, 1),
        "p50_session_ms": round(statistics.median(durations) * 1e3, 1),
        "p99_session_ms": round(percentile(durations, 0.99) * 1e3, 1),
    }


async def vanish_phase(url: str, sessions: int) -> None:
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://") + "/ws"
    sockets = []
    for k in range(sessions):
        ws = await connect(ws_url)
        await ws.send(json.dumps({"type": "reset", "data": {"seed": k}}))
        await ws.recv()
        sockets.append(ws)
    for ws in sockets:  # cut the connection: no close frame, no "close" message
        ws.transport.abort()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100, help="replies per session")
    parser.add_argument("--churn", type=int, default=4, help="sessions per churn client")
    parser.add_argument("--workers", type=int, default=2, help="the server's sandbox workers")
    parser.add_argument("--vanish", type=int, default=3, help="rounds of vanishing clients")
    args = parser.parse_args()

    print(json.dumps(envbatch_baseline(args.sessions, args.workers)), flush=True)

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "spadegym",
            "serve",
            ENV_ID,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(args.workers),
            "--max-sessions",
            str(2 * args.sessions),
        ],
        stdout=subprocess.DEVNULL,
        env={**os.environ},
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("spadegym serve did not start") from None
                time.sleep(0.2)
        print(json.dumps(asyncio.run(steps_phase(url, args.sessions, args.steps))), flush=True)
        after_steps = rss_mb(server.pid)
        print(json.dumps(asyncio.run(churn_phase(url, args.sessions, args.churn))), flush=True)
        after_churn = rss_mb(server.pid)
        after_vanish = []
        for _ in range(args.vanish):
            asyncio.run(vanish_phase(url, args.sessions))
            time.sleep(3)  # the server notices the dropped connections
            after_vanish.append(rss_mb(server.pid))
        print(
            json.dumps(
                {
                    "bench": "serve_memory",
                    "rss_mb_after_steps": after_steps,
                    "rss_mb_after_churn": after_churn,
                    "rss_mb_after_vanish": after_vanish,
                }
            )
        )
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
