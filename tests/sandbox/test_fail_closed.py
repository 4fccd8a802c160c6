"""Isolation fails closed: a worker without its network or privilege layer runs no program."""

from __future__ import annotations

import pytest

from spadegym.errors import SandboxError
from spadegym.sandbox import SandboxConfig, SandboxWorker, launch

NO_NAMESPACES = (
    "from spadegym.sandbox import isolation\n"
    "withheld = (False, 'unshare failed (test: namespaces withheld)')\n"
    "isolation.enter_namespaces = lambda network, mount: (\n"
    "    {'network': withheld, 'ipc': withheld} if network else {})\n"
    "from spadegym.sandbox.worker import main\n"
    "main(a['settings'])\n"
)


@pytest.fixture
def no_namespaces(monkeypatch):
    monkeypatch.delenv("SPADEGYM_ALLOW_WEAK_SANDBOX", raising=False)
    monkeypatch.setattr(launch, "BOOT", launch.BOOT_SETUP + NO_NAMESPACES)
    return monkeypatch


def test_a_missing_network_layer_is_refused_by_default(no_namespaces):
    worker = SandboxWorker()
    with pytest.raises(SandboxError) as caught:
        worker.start()
    assert str(caught.value) == (
        "the sandbox's network layer is not active here (network: unshare failed (test: "
        "namespaces withheld)), and generated code does not run without it. Run `spadegym "
        "doctor` to see how to enable it, or accept a weaker sandbox with "
        "SandboxConfig(allow_weak_sandbox=True) or SPADEGYM_ALLOW_WEAK_SANDBOX=1."
    )
    assert not worker.alive


def test_the_opt_out_is_explicit(no_namespaces):
    worker = SandboxWorker(SandboxConfig(allow_weak_sandbox=True))
    try:
        worker.start()
        assert worker.ping() == "pong" and not worker.layers["network"]["active"]
    finally:
        worker.close()
    no_namespaces.setenv("SPADEGYM_ALLOW_WEAK_SANDBOX", "1")
    worker = SandboxWorker()
    try:
        assert worker.ping() == "pong"
    finally:
        worker.close()


def test_require_isolation_refuses_any_missing_layer_even_when_weak_is_allowed(no_namespaces):
    no_namespaces.setenv("SPADEGYM_ALLOW_WEAK_SANDBOX", "1")
    worker = SandboxWorker(SandboxConfig(require_isolation=True))
    with pytest.raises(SandboxError, match="isolation layers not active: network, ipc"):
        worker.start()


def test_turning_the_network_layer_off_is_itself_the_opt_out(no_namespaces):
    worker = SandboxWorker(SandboxConfig(network_namespace=False))
    try:
        assert worker.ping() == "pong" and "network" not in worker.layers
    finally:
        worker.close()
