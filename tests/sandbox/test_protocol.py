"""``spadegym.sandbox.protocol``: every frame built and read in one module, both directions.

The wire's shapes (field names, the answer envelope, the batch frame, the header's size) and the
rule that ``load`` and ``new`` get the longer deadline were once written on both sides of the
pipe. These tests pin the protocol's functions against each other (what one side builds, the
other reads back) and keep the copies from coming back. No worker process is started here.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from spadegym import contract
from spadegym.sandbox import SandboxConfig, protocol
from spadegym.sandbox.runtime import Runtime

ROOT = Path(__file__).resolve().parent.parent.parent
SANDBOX = ROOT / "spadegym" / "sandbox"
HOME = SANDBOX / "protocol.py"


@pytest.mark.parametrize(
    ("request_", "op", "args"),
    [
        (protocol.ping_request(), "ping", ()),
        (protocol.load_request("x = 1", "a.py"), "load", ("x = 1", "a.py")),
        (protocol.new_request(3), "new", (3,)),
        (protocol.reset_request(4, 7, {"difficulty": 2}), "reset", (4, 7, {"difficulty": 2})),
        (protocol.reset_request(4), "reset", (4, None, None)),
        (protocol.step_request(5, "go"), "step", (5, "go")),
        (protocol.solution_request(6), "call", (6, "solution")),
        (protocol.hint_request(6), "call", (6, "hint")),
        (protocol.close_request(8), "close", (8,)),
        (protocol.unload_request(9), "unload", (9,)),
    ],
)
def test_the_worker_reads_back_what_the_host_builds(request_, op, args):
    frames = protocol.request_frames([request_])
    assert len(frames) == 1
    body = frames[0][protocol.HEADER_BYTES :]
    assert protocol.frame_length(frames[0]) == len(body)
    (item,) = protocol.request_items(protocol.decode(body))
    assert protocol.request_args(item) == (op, args)


def test_a_request_without_a_field_or_with_an_unknown_operation():
    with pytest.raises(KeyError):
        protocol.request_args({"op": "step", "i": 1})
    assert protocol.request_args({"op": "fly"}) == ("fly", None)
    assert protocol.request_args({"op": ["step"]}) == (["step"], None)  # not hashable: no raise
    assert protocol.request_args({"op": "load", "source": "s"}) == ("load", ("s", "<program>"))


def test_a_batch_is_one_frame_until_it_is_too_large():
    small = [protocol.step_request(1, "a"), protocol.step_request(2, "b")]
    (frame,) = protocol.request_frames(small)
    assert protocol.request_items(protocol.decode(frame[protocol.HEADER_BYTES :])) == small
    big = [protocol.step_request(k, "\x00" * contract.MAX_ACTION_CHARS) for k in range(20)]
    frames = protocol.request_frames(big)
    assert len(frames) > 1
    assert all(len(f) - protocol.HEADER_BYTES <= protocol.MAX_REQUEST_BYTES for f in frames)
    items = [
        i
        for f in frames
        for i in protocol.request_items(protocol.decode(f[protocol.HEADER_BYTES :]))
    ]
    assert items == big
    assert protocol.request_items([1, 2]) == [[1, 2]]  # not a batch: one (bad) request


@pytest.mark.parametrize(
    ("op", "seconds"),
    [("load", 9.0), ("new", 9.0), ("step", 2.0), ("reset", 2.0), ("call", 2.0), ("close", 2.0)],
)
def test_load_and_new_get_the_longer_deadline_on_both_sides(op, seconds):
    assert protocol.deadline(op, 2.0, 9.0) == seconds
    config = SandboxConfig(call_timeout=2.0, load_timeout=9.0)
    assert config.deadline(op) == seconds


def test_the_runtime_times_a_request_by_the_protocols_rule(monkeypatch):
    runtime = Runtime(call_timeout=2.0, load_timeout=9.0)
    armed = []
    monkeypatch.setattr(runtime, "_arm", armed.append)
    runtime.handle(protocol.new_request(1))
    runtime.handle(protocol.step_request(1, "x"))
    runtime.handle({"op": ["load"]})  # any JSON may arrive as an operation
    assert armed == [9.0, 2.0, 2.0]


def test_answers_round_trip_through_a_frame():
    for answer in (protocol.ok_answer([1, "x"]), protocol.error_answer("contract", "why")):
        frame = protocol.answer_frame(answer)
        assert protocol.read_answer(protocol.decode(frame[protocol.HEADER_BYTES :])) == answer
    ok, failed = protocol.ok_answer(3), protocol.error_answer("timeout", "slow")
    assert protocol.answer_ok(ok) and not protocol.answer_ok(failed)
    assert not protocol.answer_ok(None)
    assert protocol.answer_value(ok) == 3
    assert protocol.answer_error(ok) is None
    assert protocol.answer_error(failed) == ("timeout", "slow")


def test_the_worker_cuts_a_long_message_and_replaces_an_unencodable_value():
    long = protocol.answer_frame(protocol.error_answer("exception", "y" * 5000))
    decoded = protocol.decode(long[protocol.HEADER_BYTES :])
    assert decoded == protocol.error_answer("exception", "y" * protocol.MAX_MESSAGE_CHARS)
    bad = protocol.answer_frame(protocol.ok_answer(float("nan")))
    assert protocol.decode(bad[protocol.HEADER_BYTES :]) == protocol.error_answer(
        "contract", "the result could not be encoded (ValueError)."
    )


@pytest.mark.parametrize(
    "value",
    [
        [1],
        {"ok": True},
        {"ok": "yes", "v": 1},
        {"ok": False, "kind": 5, "msg": "x"},
        {"ok": False, "kind": "x"},
    ],
)
def test_a_malformed_envelope_is_refused(value):
    assert protocol.read_answer(value) is None


def test_the_hello_frame():
    layers = {"network": {"active": True, "detail": "an empty namespace"}}
    hello = protocol.hello_answer(42, layers)
    assert protocol.read_hello(json.loads(json.dumps(hello))) == layers
    assert protocol.read_hello(protocol.error_answer("protocol", "no")) is None
    assert protocol.read_hello(protocol.ok_answer({"layers": {"x": {"active": 1}}})) is None
    assert protocol.read_hello(protocol.ok_answer("pong")) is None


# -- one home ----------------------------------------------------------------------------------

WIRE = re.compile(
    r"""\[4:|\[:4\]|len\([^)]*\) >= 4\b|\b4 \+ need|HEADER\.(?:unpack|size)"""
    r"""|\{"batch"|\.get\("batch"\)|["'](?:ok|msg)["']\s*:"""
)
"""The wire written by hand in the sandbox: a literal header size, the header unpacked in
place, the batch frame, or an answer envelope's fields."""

RULE = re.compile(r"""\(\s*"load",\s*"new"\s*\)|\{\s*"load",\s*"new"\s*\}|LOAD_OPS""")
"""The deadline rule's operations, anywhere in the library."""


def _hand_written() -> list[str]:
    found = []
    for path in sorted((ROOT / "spadegym").rglob("*.py")):
        if path == HOME:
            continue
        in_sandbox = path.parent == SANDBOX
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if "``" in code:  # prose of a docstring
                continue
            if RULE.search(code) or (in_sandbox and WIRE.search(code)):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_the_wire_and_the_deadline_rule_are_written_only_in_the_protocol():
    assert _hand_written() == [], "build and read frames with spadegym.sandbox.protocol"


@pytest.mark.parametrize(
    ("copy", "pattern"),
    [
        ('seconds = self.load_timeout if op in ("load", "new") else self.call_timeout', RULE),
        ('LOAD_OPS = frozenset({"load", "new"})', RULE),
        ('return {"ok": True, "v": iid}', WIRE),
        ("envelope(protocol.decode(protocol.encode(self.runtime.handle(r))[4:]))", WIRE),
        ("if need is None and len(self._buf) >= 4:", WIRE),
        ("(size,) = protocol.HEADER.unpack_from(self.buf)", WIRE),
        ('items = request.get("batch") if isinstance(request, dict) else None', WIRE),
    ],
)
def test_the_check_sees_the_copies_it_replaced(copy, pattern):
    assert pattern.search(copy)


WORKER_SIDE_IMPORTS = {
    "__future__",
    "collections.abc",
    "json",
    "math",
    "re",
    "struct",
    "typing",
    "spadegym",
    "spadegym.errors",
    "spadegym.sandbox.values",
}
"""What the protocol and its value checks may import: the worker imports both at its start,
before it isolates itself, and stays light (no Gymnasium, no numpy)."""


@pytest.mark.parametrize("module", ["protocol.py", "values.py"])
def test_the_worker_side_modules_import_nothing_heavy(module):
    imported = set()
    for node in ast.walk(ast.parse((SANDBOX / module).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert imported <= WORKER_SIDE_IMPORTS, imported - WORKER_SIDE_IMPORTS
