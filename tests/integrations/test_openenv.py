"""spadegym serve: OpenEnv's protocol on 127.0.0.1, driven by OpenEnv's own clients."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time

import pytest

pytest.importorskip("openenv")
pytest.importorskip("uvicorn")

from openenv.core.generic_client import GenericEnvClient  # noqa: E402

from spadegym.env import ProgramEnv  # noqa: E402
from spadegym.errors import ConfigError, SpadegymError  # noqa: E402
from spadegym.integrations.openenv import (  # noqa: E402
    SpadeAction,
    SpadeEnvClient,
    create_app,
    uvicorn_config,
)
from spadegym.integrations.programs import resolve  # noqa: E402


@contextlib.contextmanager
def running(ids, **settings):
    """A server on 127.0.0.1 in a thread; yields (base url, its SpadeServer)."""
    import uvicorn

    app = create_app(ids, **settings)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}", app.state.spadegym
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def wait_for(condition, seconds=15.0):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def solution(env_id, seed):
    env = ProgramEnv(resolve(env_id)[0].source)
    try:
        env.reset(seed=seed)
        return env.solution()
    finally:
        env.close()


def test_an_episode_through_the_typed_and_the_generic_client(spade_ids):
    lock = spade_ids["lock"]
    (answer,) = solution(lock, 11)
    with running([lock, spade_ids["clock"]], workers=1) as (url, server):

        async def play():
            async with SpadeEnvClient(base_url=url) as env:
                first = await env.reset(env_id=lock, seed=11)
                assert first.observation.text == "A 3-digit lock. Guess with \\boxed{ddd}."
                assert (first.done, first.observation.max_turns) == (False, 8)
                assert server.apool.live == 1
                wrong = await env.step(SpadeAction(reply="\\boxed{}"))
                assert wrong.observation.text == "Answer with three digits in \\boxed{}."
                assert (wrong.done, wrong.reward, wrong.observation.turn) == (False, 0.0, 1)
                won = await env.step(SpadeAction(reply=answer))
                assert (won.done, won.reward, won.observation.outcome) == (True, 1.0, 1.0)
                state = await env.state()
                assert (state.env_id, state.seed, state.step_count) == (lock, 11, 2)
                after = await env.step(SpadeAction(reply=answer))
                assert after.observation.error.startswith("no episode is running: reset first")

        asyncio.run(play())
        assert wait_for(lambda: server.apool.live == 0 and server.sessions == 0)
        with GenericEnvClient(base_url=url).sync() as env:
            first = env.reset(env_id=spade_ids["clock"], seed=2, difficulty=1, hint=True)
            assert "clock face" in first.observation["text"]
            assert "\n\nHINT: Add the shifts up first" in first.observation["text"]
            last = env.step({"reply": "\\boxed{-5}"})
            assert last.done and last.reward == 0.0 and last.observation["outcome"] == 0.0
    assert server.apool.counters.opened == server.apool.counters.released == 2


def test_sessions_are_separate_instances_and_games_name_the_player(spade_ids):
    nim = spade_ids["nim"]
    with running([nim], workers=2) as (url, server):

        async def one(seed):
            async with SpadeEnvClient(base_url=url) as env:
                first = await env.reset(seed=seed)  # the only id served
                assert first.observation.player == 0
                nxt = await env.step(SpadeAction(reply="nonsense"))
                return first.observation.text, nxt

        async def both():
            return await asyncio.gather(one(1), one(2))

        (text1, end1), (text2, _) = asyncio.run(both())
        assert text1 != text2
        # An illegal move loses at once: the game reports both seats' outcomes.
        assert end1.done and end1.observation.outcome == [-1.0, 1.0]
        assert wait_for(lambda: server.apool.live == 0)


def test_bad_requests_get_clear_errors(spade_ids):
    with running([spade_ids["lock"], spade_ids["clock"]], workers=1) as (url, _):

        async def errors():
            async with SpadeEnvClient(base_url=url) as env:
                messages = []
                for kwargs in (
                    {},
                    {"env_id": "spade/Nope-v0"},
                    {"env_id": spade_ids["lock"], "difficulty": 9},
                    {"env_id": spade_ids["lock"], "difficulty": 2, "colour": "red"},
                ):
                    with pytest.raises(RuntimeError) as err:
                        await env.reset(**kwargs)
                    messages.append(str(err.value))
                early = await env.step(SpadeAction(reply="hi"))
                return messages, early

        messages, early = asyncio.run(errors())
        assert "serves several environments; reset with env_id= one of" in messages[0]
        assert "env_id='spade/Nope-v0' is not served here" in messages[1]
        assert "difficulty=9: difficulties are ints in 1..5." in messages[2]
        assert "reset() got unknown argument(s) colour" in messages[3]
        assert early.done and early.observation.error.startswith("no episode is running")


def test_the_http_endpoints(spade_ids):
    import httpx

    with running([spade_ids["lock"]], workers=1) as (url, server):
        reset = httpx.post(f"{url}/reset", json={"seed": 3}, timeout=30).json()
        assert reset["observation"]["text"].startswith("A 3-digit lock.")
        step = httpx.post(f"{url}/step", json={"action": {"reply": "x"}}, timeout=30)
        assert step.status_code == 409  # an error status, as OpenEnv's server answers errors
        assert "the HTTP /step endpoint gets a fresh instance" in step.json()["detail"]
        assert wait_for(lambda: server.apool.live == 0 and server.sessions == 0)


def test_capacity_and_clients_that_vanish_or_go_idle(spade_ids):
    from websockets.sync.client import connect

    lock = spade_ids["lock"]
    with running([lock], workers=1, max_sessions=2, idle_timeout=1.0) as (url, server):
        ws_url = url.replace("http://", "ws://") + "/ws"
        stack = contextlib.ExitStack()
        idle = stack.enter_context(connect(ws_url))
        vanishing = stack.enter_context(connect(ws_url))
        for ws in (vanishing, idle):
            ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
            assert json.loads(ws.recv(timeout=30))["type"] == "observation"
        assert server.apool.live == 2
        with connect(ws_url) as third:  # over the cap: refused as soon as it connects
            reply = json.loads(third.recv(timeout=30))
        assert reply["data"]["code"] == "CAPACITY_REACHED"
        # A client that vanishes without a close frame: its instance goes with the connection.
        vanishing.socket.shutdown(socket.SHUT_RDWR)
        vanishing.socket.close()
        assert wait_for(lambda: server.apool.live == 1, 10)
        # A client that stays connected but silent: closed by the idle timeout (OpenEnv's
        # reaper looks every 5 s at least).
        assert wait_for(lambda: server.apool.live == 0 and server.sessions == 0, 15)
        idle.send(json.dumps({"type": "step", "data": {"reply": "\\boxed{123}"}}))
        late = json.loads(idle.recv(timeout=30))
        assert "this session was closed" in late["data"]["observation"]["error"]
        with contextlib.suppress(Exception):  # the vanished one's socket is gone already
            stack.close()


def test_serve_settings_are_checked(spade_ids):
    with pytest.raises(ConfigError, match="idle_timeout=0: sessions need a positive idle"):
        create_app([spade_ids["lock"]], idle_timeout=0)
    with pytest.raises(ConfigError, match="max_sessions=0: serve at least 1 session"):
        create_app([spade_ids["lock"]], max_sessions=0)
    with pytest.raises(SpadegymError, match="'spade/Nope-v0' is not a registered spadegym"):
        create_app(["spade/Nope-v0"])
