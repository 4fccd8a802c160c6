"""spadegym serve: bad messages get a clear error and the session goes on."""

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
websockets = pytest.importorskip("websockets")

from spadegym import contract  # noqa: E402
from spadegym.integrations.openenv import create_app, uvicorn_config  # noqa: E402
from spadegym.integrations.serve_guard import check_ws  # noqa: E402


@contextlib.contextmanager
def running(ids):
    import uvicorn

    app = create_app(ids, workers=1)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


LONG = "x" * 900_000
BAD = {
    "long reply": (
        json.dumps({"type": "step", "data": {"reply": LONG}}),
        "the reply is 900,000 characters; the limit is 65,536 (contract.MAX_ACTION_CHARS)",
    ),
    "binary frame": (b"\x00\x01binary", "binary frames are not read; send a text frame"),
    "json array": ("[1, 2, 3]", "the message is a JSON list; send an object"),
    "deep json": ("[" * 100_000 + "]" * 100_000, "the message nests deeper than 32 levels"),
    "lone surrogate": (
        '{"type": "step", "data": {"reply": "\\ud800"}}',
        "the message holds a lone surrogate (\\ud800), which is not text",
    ),
    "reply not a string": ('{"type": "step", "data": {"reply": 5}}', "the reply is a int"),
}


def test_each_bad_message_is_answered_and_the_session_goes_on(spade_ids):
    lock = spade_ids["lock"]
    with running([lock]) as port:

        async def session():
            answers = {}
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
                await ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
                first = json.loads(await ws.recv())
                assert first["type"] == "observation"
                for name, (message, _) in BAD.items():
                    await ws.send(message)
                    answers[name] = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "reset", "data": {"seed": -1}}))
                answers["negative seed"] = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "step", "data": {"reply": "\\boxed{123}"}}))
                after = json.loads(await ws.recv())
            return answers, after

        answers, after = asyncio.run(session())
    for name, (_, expected) in BAD.items():  # the negative seed is OpenEnv's EXECUTION_ERROR
        reply = answers[name]
        assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR", name
        assert expected in reply["data"]["message"], (name, reply)
        assert len(json.dumps(reply)) < 1000  # nothing is echoed whole
    assert answers["negative seed"]["data"]["message"] == "seed=-1: a seed is an int >= 0."
    assert after["type"] == "observation"  # the same session, still playing
    assert after["data"]["observation"]["turn"] == 1


def test_http_step_answers_with_error_statuses_and_cuts_replies(spade_ids):
    import httpx

    with running([spade_ids["lock"]]) as port:
        url = f"http://127.0.0.1:{port}"
        step = httpx.post(f"{url}/step", json={"action": {"reply": "x"}}, timeout=30)
        assert step.status_code == 409
        assert "the HTTP /step endpoint gets a fresh instance" in step.json()["detail"]
        long = httpx.post(f"{url}/step", json={"action": {"reply": LONG}}, timeout=30)
        assert long.status_code == 422 and len(long.content) < 1000
        assert "the reply is 900,000 characters; the limit is 65,536" in long.json()["detail"]
        for body in (b"[1]", b"[" * 100_000, b"\xff\xfe"):
            bad = httpx.post(f"{url}/reset", content=body, timeout=30)
            assert bad.status_code == 422 and len(bad.content) < 1000, body[:10]
        negative = httpx.post(f"{url}/reset", json={"seed": -1}, timeout=30)
        assert negative.status_code == 422  # OpenEnv's own request model refuses it
        assert "greater than or equal to 0" in negative.text
        unknown = httpx.post(f"{url}/reset", json={"env_id": "spade/Nope-v0"}, timeout=30)
        assert unknown.status_code == 422
        assert unknown.json()["detail"].startswith("env_id='spade/Nope-v0' is not served here")
        reset = httpx.post(f"{url}/reset", json={"seed": 3}, timeout=30)
        assert reset.status_code == 200
        assert reset.json()["observation"]["text"].startswith("A 3-digit lock.")


def test_good_messages_pass_untouched():
    for message in (
        {"type": "reset", "data": {"env_id": "spade/X-v0", "seed": 1}},
        {"type": "step", "data": {"reply": "y" * contract.MAX_ACTION_CHARS}},
        {"type": "state"},
        {"type": "close"},
        {"type": "reset", "data": {"note": "a \\u00e9 [{ in a string ]}" + "[" * 40}},
    ):
        assert check_ws(json.dumps(message)) is None
