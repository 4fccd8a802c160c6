"""What a worker does with a request: load programs, hold instances, call them under a deadline.

``Runtime.handle`` takes one request dict and returns one response dict, never raising. The
worker process feeds it frames from its pipe; ``isolation="none"`` calls it directly in the
host. Every value a program returns passes the exact-type checks of ``protocol`` before it
leaves, and every failure becomes data: ``{"ok": False, "kind": ..., "msg": ...}``.
"""

from __future__ import annotations

import signal
import threading
import traceback
from typing import Any

from spadegym import contract
from spadegym.errors import PolicyError
from spadegym.sandbox import protocol


class Deadline(BaseException):
    """Raised inside program code when its call runs past the soft deadline.

    A ``BaseException`` so that ``except Exception`` in a program does not swallow it.
    """


def _on_alarm(signum: int, frame: Any) -> None:
    raise Deadline()


def _program_line(exc: BaseException, filename: str) -> str:
    """The 'line N' of the innermost program frame of a traceback, or ''."""
    line = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = f" (line {frame.lineno})"
    return line


class Runtime:
    """Programs and instances of one worker, and the dispatch of requests to them."""

    def __init__(self, call_timeout: float = 5.0, load_timeout: float = 10.0):
        self.call_timeout = call_timeout
        self.load_timeout = load_timeout
        self.programs: dict[int, type] = {}
        self.instances: dict[int, Any] = {}
        self.broken: dict[int, str] = {}
        self.files: dict[int, str] = {}  # program or instance id -> the program's filename
        self.next_id = 1
        self.use_alarm = threading.current_thread() is threading.main_thread()
        if self.use_alarm:
            signal.signal(signal.SIGALRM, _on_alarm)

    # -- dispatch ---------------------------------------------------------------------------

    def handle(self, request: dict) -> dict:
        """Serve one request; the response is a plain JSON dict."""
        op = request.get("op")
        try:
            if op == "step":
                return self._call(request["i"], "step", request["a"])
            if op == "reset":
                return self._reset(request["i"], request.get("seed"), request.get("options"))
            if op == "call":
                return self._call(request["i"], request["m"])
            if op == "new":
                return self._new(request["p"])
            if op == "load":
                return self._load(request["source"], request.get("filename", "<program>"))
            if op == "close":
                self.instances.pop(request["i"], None)
                self.broken.pop(request["i"], None)
                self.files.pop(request["i"], None)
                return {"ok": True, "v": None}
            if op == "unload":
                self.programs.pop(request["p"], None)
                self.files.pop(request["p"], None)
                return {"ok": True, "v": None}
            if op == "ping":
                return {"ok": True, "v": "pong"}
        except (KeyError, TypeError) as exc:
            return _fail("protocol", f"malformed request ({exc!r})")
        return _fail("protocol", f"unknown operation {op!r}")

    # -- operations -------------------------------------------------------------------------

    def _load(self, source: str, filename: str) -> dict:
        from spadegym.policy import load_program  # imported before isolation, cached here

        if type(source) is not str:
            return _fail("protocol", "source must be a str")
        try:
            with _deadline(self, self.load_timeout):
                loaded = load_program(source, filename)
        except PolicyError as exc:
            return _fail("policy", "; ".join(exc.errors))
        except Deadline:
            return _fail(
                "timeout",
                f"module code ran past {self.load_timeout:g} s at load time; "
                "module-level code may only define things.",
            )
        except BaseException as exc:  # the program's own failure, reported as data
            return _fail("exception", self._describe(exc, filename, "loading the module"))
        cls = loaded.env_class
        pid = self._id()
        self.programs[pid] = cls
        self.files[pid] = filename
        return {"ok": True, "v": {"program": pid, "class": loaded.class_name, **_class_facts(cls)}}

    def _new(self, pid: int) -> dict:
        cls = self.programs.get(pid)
        if cls is None:
            return _fail("protocol", f"no program {pid} in this worker")
        try:
            with _deadline(self, self.load_timeout):
                instance = cls()
        except Deadline:
            return _fail("timeout", f"creating the environment ran past {self.load_timeout:g} s.")
        except BaseException as exc:
            return _fail("exception", self._describe(exc, self.files[pid], f"{cls.__name__}()"))
        iid = self._id()
        self.instances[iid] = instance
        self.files[iid] = self.files[pid]
        return {"ok": True, "v": iid}

    def _reset(self, iid: int, seed: Any, options: Any) -> dict:
        if seed is not None and type(seed) is not int:
            return _fail("protocol", "seed must be an int or None")
        if options is not None and type(options) is not dict:
            return _fail("protocol", "options must be a dict or None")
        self.broken.pop(iid, None)
        return self._call(iid, "reset", seed, options)

    def _call(self, iid: int, method: str, *args: Any) -> dict:
        instance = self.instances.get(iid)
        if instance is None:
            return _fail("protocol", f"no environment instance {iid} in this worker")
        if iid in self.broken and method != "reset":
            return _fail(
                "broken",
                f"the environment failed earlier ({self.broken[iid]}); "
                "call reset() before using it again.",
            )
        check = _CHECKS.get(method)
        if check is None:
            return _fail("protocol", f"method {method!r} cannot be called")
        if method == "step" and (
            type(args[0]) is not str or len(args[0]) > contract.MAX_ACTION_CHARS
        ):
            return _fail(
                "protocol", f"actions are str of at most {contract.MAX_ACTION_CHARS} characters"
            )
        try:
            with _deadline(self, self.call_timeout):
                bound = getattr(instance, method, None)
                if bound is None:
                    return _fail("missing", f"the environment has no {method}() method.")
                value = bound(*args)
                clean = check(value)
        except Deadline:
            self.broken[iid] = "timeout"
            return _fail("timeout", f"{method}() ran past the {self.call_timeout:g} s deadline.")
        except protocol.ContractViolation as exc:
            self.broken[iid] = "contract"
            return _fail("contract", str(exc))
        except BaseException as exc:
            self.broken[iid] = "exception"
            return _fail("exception", self._describe(exc, self.files.get(iid, ""), f"{method}()"))
        return {"ok": True, "v": clean}

    def _describe(self, exc: BaseException, filename: str, during: str) -> str:
        # str(exc) may run the program's own __str__ (on its exception, or on an argument):
        # under the deadline, and a failure of its own only loses the text.
        try:
            with _deadline(self, self.call_timeout):
                return _describe(exc, filename, during)
        except BaseException:
            return f"{during} raised {type(exc).__name__}{_program_line(exc, filename)}"

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1


_CHECKS = {
    "step": protocol.check_step,
    "reset": protocol.check_reset,
    "solution": protocol.check_solution,
    "hint": protocol.check_hint,
}


class _deadline:
    """Arm SIGALRM for ``seconds`` (and again every 50 ms while the call holds on)."""

    def __init__(self, runtime: Runtime, seconds: float):
        self.runtime = runtime
        self.seconds = seconds

    def __enter__(self) -> None:
        if self.runtime.use_alarm:
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.05)

    def __exit__(self, *exc: object) -> None:
        if self.runtime.use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _class_facts(cls: type) -> dict:
    """What the host needs to know about a program's env class, as plain values."""
    facts: dict[str, Any] = {}
    doc = cls.__dict__.get("__doc__")
    facts["doc"] = doc if type(doc) is str else None
    for name in ("max_turns", "num_players"):
        value = getattr(cls, name, None)
        facts[name] = value if type(value) is int else None
    skill = getattr(cls, "skill", None)
    facts["skill"] = skill if type(skill) is str else None
    for method in ("reset", "step", "solution", "hint", "check"):
        facts[f"has_{method}"] = callable(getattr(cls, method, None))
    from spadegym.program import ToolEnv

    facts["tool_env"] = isinstance(cls, type) and issubclass(cls, ToolEnv)
    tools = getattr(cls, "tools", None) if facts["tool_env"] else None
    try:
        facts["tools"] = protocol.plain_json(tools, "tools") if tools is not None else None
    except protocol.ContractViolation:
        facts["tools"] = None
    return facts


def _describe(exc: BaseException, filename: str, during: str) -> str:
    if isinstance(exc, RecursionError):
        return f"{during} recursed too deeply{_program_line(exc, filename)}."
    if isinstance(exc, MemoryError):
        return f"{during} ran out of memory{_program_line(exc, filename)}."
    text = str(exc)
    if len(text) > 300:
        text = text[:300] + "..."
    return f"{during} raised {type(exc).__name__}{_program_line(exc, filename)}: {text}"


def _fail(kind: str, message: str) -> dict:
    return {"ok": False, "kind": kind, "msg": message}
