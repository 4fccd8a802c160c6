"""The wire between host and worker: every frame, request and answer, built and read here.

Both sides import this module, and nothing else writes or reads the wire's shapes. A frame is a
4-byte big-endian length (``HEADER``) and a UTF-8 JSON body (``values.json_bytes``). The host
builds every request with the ``*_request`` functions (which refuse what the worker would
refuse, so a bad argument fails in the caller, with a sentence, before anything is sent) and
splits a batch into frames (``request_frames``); the worker reads a frame's requests
(``request_items``, ``request_args``) and answers each with ``ok_answer`` or ``error_answer``,
framed by ``answer_frame``; the host reads an answer's envelope (``read_answer``) within the
size ``answer_limit`` allows, and its value with ``spadegym.sandbox.answers``. Which deadline a
request runs under is ``deadline``, on both sides. Every value a program returns passes the
exact-type checks of ``values`` on both sides. Nothing is ever unpickled: a worker that
escaped the policy must not be able to run code in the host. The worker imports this module:
it depends on the standard library, ``spadegym.contract``, ``spadegym.errors`` and ``values``
only.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

from spadegym import contract
from spadegym.errors import ProgramError, SpadegymError
from spadegym.sandbox.values import ContractViolation, json_bytes, plain_json

HEADER = struct.Struct(">I")
"""A frame's length prefix: the body's size in bytes, big-endian."""
HEADER_BYTES = HEADER.size
"""Bytes of a frame's length prefix, before its body."""
MAX_REQUEST_BYTES = 4 * contract.MAX_ACTION_CHARS + 8 * contract.MAX_PROGRAM_BYTES
"""Largest frame the worker accepts (a program, or a batch of long actions); the host splits a
batch that would be larger into several frames."""
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Largest frame the host accepts from a worker (a ``solution()`` answer; every other answer
has a far smaller limit, ``answer_limit``); anything bigger kills the worker."""
MAX_OPTIONS_BYTES = 64 * 1024
"""Largest ``options`` of a ``reset``, as JSON."""
MAX_TOOLS_BYTES = 64 * 1024
"""Largest ``tools`` declaration of a ``ToolEnv``, as JSON."""
MAX_MESSAGE_CHARS = 2000
"""Longest error message a worker sends (it cuts longer ones; the host cuts again)."""
MAX_SKILL_CHARS = 200
"""Longest ``skill`` a worker reports."""

_CHAR_BYTES = 6  # the most one character takes in a frame: a control character as \uXXXX
_ENVELOPE_BYTES = _CHAR_BYTES * MAX_MESSAGE_CHARS + 4096  # an error answer, or a small value
_ANSWER_LIMITS: dict[str | None, int] = {
    "reset": _CHAR_BYTES * contract.MAX_OBSERVATION_CHARS + contract.MAX_INFO_BYTES,
    "step": _CHAR_BYTES * contract.MAX_OBSERVATION_CHARS + contract.MAX_INFO_BYTES,
    "hint": _CHAR_BYTES * contract.MAX_OBSERVATION_CHARS,
    "load": _CHAR_BYTES * (contract.MAX_PROGRAM_BYTES + MAX_TOOLS_BYTES + MAX_SKILL_CHARS),
    "solution": MAX_RESPONSE_BYTES,
}
LARGE_FRAME_BYTES = 1024 * 1024
"""Frames larger than this (only ``solution()`` answers may be) must hold few JSON values."""
MAX_LARGE_FRAME_VALUES = contract.MAX_SOLUTION_STEPS + 16
"""JSON values a large frame may hold: a solution's actions and the envelope."""
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def answer_limit(request: dict) -> int:
    """The largest answer frame the host reads for ``request``, judged by its length prefix.

    A worker that escaped the policy may answer anything: a frame longer than the largest
    legitimate answer to that request is refused before one byte of it is read.
    """
    return _ANSWER_LIMITS.get(call_name(request), 0) + _ENVELOPE_BYTES


def few_values(body: bytes) -> bool:
    """Whether a large frame holds at most ``MAX_LARGE_FRAME_VALUES`` JSON values.

    Decoding 16 MiB of ``[[],[],...]`` takes half a gigabyte, so a large frame is counted
    first: every value but the first of a container follows a comma, every container opens
    with a bracket. Counting bytes is fast; only when strings might hold commas or brackets are
    the strings taken out before counting again.
    """

    def count(text: bytes) -> int:
        return text.count(b",") + text.count(b"[") + text.count(b"{")

    if count(body) <= MAX_LARGE_FRAME_VALUES:
        return True
    return count(_JSON_STRING.sub(b'""', body)) <= MAX_LARGE_FRAME_VALUES


def encode(message: Any) -> bytes:
    """Encode one message as a frame: its length (``HEADER``), then its UTF-8 JSON.

    Raises:
        ValueError: a non-finite number, or a circular structure (``values.json_bytes``).
        TypeError: a value JSON has no form for.
    """
    body = json_bytes(message)
    return HEADER.pack(len(body)) + body


def frame_length(buffer: bytes | bytearray) -> int:
    """The body size a frame's header announces (``buffer`` starts with a whole header)."""
    return HEADER.unpack_from(buffer)[0]


def decode(body: bytes) -> Any:
    """Decode a frame body; non-finite numbers are refused (JSON has none, Python accepts them).

    Raises:
        ValueError: the body is not UTF-8 JSON, holds a non-finite number, or is nested too
            deeply for the parser (a ``RecursionError`` is reported as a ``ValueError``).
    """
    try:
        return _decoder.decode(body.decode("utf-8", "surrogatepass"))
    except RecursionError:
        raise ValueError("a frame nested too deeply to parse") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in a frame")


_decoder = json.JSONDecoder(parse_constant=_refuse_constant)  # one, not one per frame


# -- deadlines -------------------------------------------------------------------------------------

LOAD_OPS = ("load", "new")
"""Operations that run under the load timeout (compiling, module code, the constructor);
every other one runs under the call timeout. A tuple: a worker may be sent any JSON as an
operation, and a list must not raise where a set would."""


def deadline(op: Any, call_timeout: float, load_timeout: float) -> float:
    """The soft deadline, in seconds, of a request whose operation is ``op``.

    The host waits that long (plus its grace) for the answer; the worker interrupts the call
    after it.
    """
    return load_timeout if op in LOAD_OPS else call_timeout


# -- requests (built by the host, read by the worker) ----------------------------------------------


def ping_request() -> dict:
    """A round trip that runs no program code."""
    return {"op": "ping"}


def load_request(source: str, filename: str = "<program>") -> dict:
    """Compile ``source`` and run its module code; answered with the class facts."""
    if type(source) is not str or type(filename) is not str:
        raise SpadegymError("a program's source and filename must be str.")
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > contract.MAX_PROGRAM_BYTES:
        raise ProgramError(
            f"the program is {size} bytes; the contract allows at most "
            f"{contract.MAX_PROGRAM_BYTES}. Write a shorter program.",
            "policy",
        )
    return {"op": "load", "source": source, "filename": filename}


def new_request(program: int) -> dict:
    """Create an instance of a loaded program's environment class; answered with its id."""
    return {"op": "new", "p": _id(program, "program")}


def reset_request(instance: int, seed: int | None = None, options: dict | None = None) -> dict:
    """Call an instance's ``reset(seed, options)``.

    Raises:
        SpadegymError: ``seed`` is not an int or None, or ``options`` not a dict of JSON values.
    """
    if seed is not None and type(seed) is not int:
        raise SpadegymError(f"seed={seed!r}: a seed must be an int or None.")
    if options is not None:
        if type(options) is not dict:
            raise SpadegymError(
                f"options of type {type(options).__name__}: options must be a dict or None."
            )
        try:
            options = plain_json(options, "reset() options", limit=MAX_OPTIONS_BYTES)
        except ContractViolation as exc:
            raise SpadegymError(f"{exc} Pass JSON values only.") from None
    return {"op": "reset", "i": _id(instance, "instance"), "seed": seed, "options": options}


def step_request(instance: int, action: str) -> dict:
    """Call an instance's ``step(action)``.

    Raises:
        SpadegymError: the action is not a str.
        ProgramError: the action is longer than the contract allows (kind ``"action"``): a
            player's reply, so it is reported like a failed step, never sent.
    """
    if type(action) is not str:
        raise SpadegymError(f"actions are str replies; got {type(action).__name__}.")
    if len(action) > contract.MAX_ACTION_CHARS:
        raise ProgramError(
            f"the action has {len(action)} characters; actions are at most "
            f"{contract.MAX_ACTION_CHARS} characters. Send a shorter reply.",
            "action",
        )
    return {"op": "step", "i": _id(instance, "instance"), "a": action}


def solution_request(instance: int) -> dict:
    """Call an instance's ``solution()``."""
    return {"op": "call", "i": _id(instance, "instance"), "m": "solution"}


def hint_request(instance: int) -> dict:
    """Call an instance's ``hint()``."""
    return {"op": "call", "i": _id(instance, "instance"), "m": "hint"}


def close_request(instance: int) -> dict:
    """Forget an instance (its finalizers run under the call deadline)."""
    return {"op": "close", "i": _id(instance, "instance")}


def unload_request(program: int) -> dict:
    """Forget a loaded program (the worker still refuses any other program)."""
    return {"op": "unload", "p": _id(program, "program")}


def _id(value: int, what: str) -> int:
    if type(value) is not int:
        raise SpadegymError(f"{what} ids are ints; got {type(value).__name__}.")
    return value


def call_name(request: dict) -> Any:
    """What a request calls: its operation, or the method of a ``call``."""
    op = request.get("op")
    return request.get("m") if op == "call" else op


def request_frames(requests: Sequence[dict]) -> list[bytes]:
    """Frames holding ``requests`` in order, each at most ``MAX_REQUEST_BYTES`` long.

    One request is a frame of its own; several are one ``{"batch": [...]}`` frame, split in
    halves until each fits (one request always goes alone, whatever its size: the worker
    answers an oversized frame with an error).

    Raises:
        ValueError: a request holds a non-finite number or a circular structure.
        TypeError: a request holds a value JSON has no form for.
    """
    frame = encode(requests[0] if len(requests) == 1 else {"batch": list(requests)})
    if len(frame) - HEADER_BYTES <= MAX_REQUEST_BYTES or len(requests) == 1:
        return [frame]
    half = len(requests) // 2
    return request_frames(requests[:half]) + request_frames(requests[half:])


def request_items(message: Any) -> list[Any]:
    """The requests a decoded request frame holds: a batch's items, else the message itself."""
    items = message.get("batch") if isinstance(message, dict) else None
    return items if isinstance(items, list) else [message]


_ARGUMENTS: dict[str, Callable[[dict], tuple]] = {
    "step": lambda r: (r["i"], r["a"]),
    "reset": lambda r: (r["i"], r.get("seed"), r.get("options")),
    "call": lambda r: (r["i"], r["m"]),
    "new": lambda r: (r["p"],),
    "load": lambda r: (r["source"], r.get("filename", "<program>")),
    "close": lambda r: (r["i"],),
    "unload": lambda r: (r["p"],),
    "ping": lambda r: (),
}


def request_args(request: dict) -> tuple[Any, tuple | None]:
    """A request's operation and its arguments, as the ``*_request`` functions wrote them.

    ``step``: ``(instance, action)``; ``reset``: ``(instance, seed, options)``; ``call``:
    ``(instance, method)``; ``new`` and ``unload``: ``(program,)``; ``load``: ``(source,
    filename)``; ``close``: ``(instance,)``; ``ping``: ``()``. The values are not checked here
    (the worker checks each where it uses it).

    Returns:
        ``(op, arguments)``; the arguments are None for an operation that does not exist.

    Raises:
        KeyError: a field the operation needs is missing.
    """
    op = request.get("op")
    read = _ARGUMENTS.get(op) if type(op) is str else None
    return op, (read(request) if read is not None else None)


def request_instance(request: dict) -> Any:
    """The instance id a request names (None when it names none)."""
    return request.get("i")


# -- answers (built by the worker, read by the host) -----------------------------------------------


def ok_answer(value: Any) -> dict:
    """The answer carrying a request's value (already checked plain JSON)."""
    return {"ok": True, "v": value}


def error_answer(kind: str, message: str) -> dict:
    """The answer of a failed request: its kind (``"timeout"``, ``"contract"``, ...) and why."""
    return {"ok": False, "kind": kind, "msg": message}


def hello_answer(pid: int, layers: dict) -> dict:
    """A worker's first frame: its pid and each isolation layer's ``active`` and ``detail``."""
    return ok_answer({"pid": pid, "layers": layers})


def answer_frame(answer: dict) -> bytes:
    """The frame of one answer as the worker sends it.

    An error message is cut to ``MAX_MESSAGE_CHARS`` (the host reads no more); a value that
    cannot be encoded is answered with a ``"contract"`` error instead.
    """
    if answer["ok"] is False and len(answer["msg"]) > MAX_MESSAGE_CHARS:
        answer = error_answer(answer["kind"], answer["msg"][:MAX_MESSAGE_CHARS])
    try:
        return encode(answer)
    except (ValueError, TypeError, UnicodeError, RecursionError) as exc:
        return encode(
            error_answer("contract", f"the result could not be encoded ({type(exc).__name__}).")
        )


def read_answer(value: Any) -> dict | None:
    """``value`` if it is a well-formed answer envelope, else None (the worker lied)."""
    if type(value) is not dict:
        return None
    ok = value.get("ok")
    if ok is True and "v" in value:
        return value
    if ok is False and type(value.get("kind")) is str and type(value.get("msg")) is str:
        return value
    return None


def answer_ok(answer: Any) -> bool:
    """Whether ``answer`` is an envelope that carries a value (not an error, not a failure)."""
    return type(answer) is dict and answer.get("ok") is True


def answer_value(answer: dict) -> Any:
    """The value an ``ok`` answer carries."""
    return answer["v"]


def answer_error(answer: dict) -> tuple[str, str] | None:
    """An error answer's ``(kind, message)``; None for an ``ok`` answer."""
    return None if answer.get("ok") is True else (answer["kind"], answer["msg"])


def read_hello(value: Any) -> dict | None:
    """The layers of a worker's first frame, or None when it is not a well-formed hello."""
    answer = read_answer(value)
    if answer is None or answer["ok"] is not True:
        return None
    hello = answer["v"]
    layers = hello.get("layers") if type(hello) is dict else None
    if type(layers) is not dict or not all(
        type(layer) is dict
        and type(layer.get("active")) is bool
        and type(layer.get("detail")) is str
        for layer in layers.values()
    ):
        return None
    return layers
