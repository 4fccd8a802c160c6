"""``spadegym serve`` as a user runs it: a process on 127.0.0.1, stopped with Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("openenv")


def command(*args, registry):
    env = {
        **os.environ,
        "SPADEGYM_SHIPPED_REGISTRY": "",
        "SPADEGYM_REGISTRY_PATH": str(registry),
    }
    return [sys.executable, "-m", "spadegym", "serve", *args], env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow  # the process loads OpenEnv, which loads gradio (10-60 s here)
def test_serve_plays_over_openenv_and_stops_on_ctrl_c(spade_ids, tmp_path):
    from openenv.core.generic_client import GenericEnvClient

    port = free_port()
    argv, env = command(spade_ids["lock"], "--port", str(port), registry=tmp_path / "registry")
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        with GenericEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as client:
            first = client.reset(seed=4)
            assert first.observation["text"].startswith("A 3-digit lock.")
            assert client.step({"reply": "\\boxed{}"}).observation["turn"] == 1
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    assert out.decode().startswith(
        f"spadegym serve: 1 environment(s) (spade/LockPick-v0) at http://127.0.0.1:{port}"
    )


def test_serve_refuses_bad_settings(spade_ids, tmp_path):
    argv, env = command("spade/Nope-v0", registry=tmp_path / "registry")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "'spade/Nope-v0' is not a registered spadegym environment" in done.stderr
    argv, env = command("--idle-timeout", "0", registry=tmp_path / "registry")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "idle_timeout=0.0: sessions need a positive idle timeout" in done.stderr
