"""What a worker does with a request: load programs, hold instances, call them under a deadline.

``Runtime.handle`` takes one request dict and returns one response dict, never raising. The
worker process feeds it frames from its pipe; ``isolation="none"`` calls it directly in the
host. Every value a program returns passes the exact-type checks of ``values`` before it
leaves, and every failure becomes data: ``protocol.error_answer(kind, message)``.

All program code runs while a request's deadline is armed: module code, constructors,
``reset``/``step``/``solution``/``hint``, reading the class's facts, describing an exception
(``str`` of a program's exception is program code), and finalizers (``__del__``, weakref
callbacks), which run when an instance is closed or when garbage is collected. In a worker
process the cyclic garbage collector is switched on only inside that window, so a finalizer
never runs between requests. The soft deadline is ``SIGALRM`` (a ``Deadline`` raised in the
program, repeated every 50 ms); a CPU limit of the deadline plus the host's grace plus one
second (``SIGPROF``, whose default action ends the process) stops a worker that spins in C after
its host has gone; the host's hard deadline kills it in every other case.

A worker process serves one program: once a program is loaded, a ``load`` of any other text is
refused (instances of that one program may be many). Programs cannot tamper with each other
through shared classes or read each other's state, since no other program is there.
"""

from __future__ import annotations

import gc
import signal
import threading
import traceback
from collections.abc import Callable
from typing import Any

from spadegym import contract
from spadegym.errors import PolicyError
from spadegym.sandbox import protocol
from spadegym.sandbox.protocol import error_answer, ok_answer
from spadegym.sandbox.values import (
    ContractViolation,
    check_hint,
    check_reset,
    check_solution,
    check_step,
    plain_json,
)

MAX_SKILL_CHARS = protocol.MAX_SKILL_CHARS
"""Longest ``skill`` reported (a skill is a short name; a longer one is cut)."""

ALARM_REPEAT = 0.05
"""Seconds between repeated ``Deadline``s once a call is past its soft deadline."""


class Deadline(BaseException):
    """Raised inside program code when its call runs past the soft deadline.

    A ``BaseException`` so that ``except Exception`` in a program does not swallow it.
    """


def _program_line(exc: BaseException, filename: str) -> str:
    """The 'line N' of the innermost program frame of a traceback, or ''."""
    line = ""
    for frame in traceback.extract_tb(exc.__traceback__, limit=200):
        if frame.filename == filename:
            line = f" (line {frame.lineno})"
    return line


class Runtime:
    """Programs and instances of one worker, and the dispatch of requests to them.

    Args:
        call_timeout: soft deadline of calls on instances, in seconds.
        load_timeout: soft deadline of ``load`` and ``new``.
        kill_grace: the host's grace past a soft deadline (sizes the per-call CPU limit).
        process: this runtime owns a worker process (one program only; the CPU limit and the
            garbage collector's window apply). False in the host (``isolation="none"``).
    """

    def __init__(
        self,
        call_timeout: float = 5.0,
        load_timeout: float = 10.0,
        kill_grace: float = 1.0,
        process: bool = False,
    ):
        self.call_timeout = call_timeout
        self.load_timeout = load_timeout
        self.kill_grace = kill_grace
        self.process = process
        self.programs: dict[int, type] = {}
        self.instances: dict[int, Any] = {}
        self.broken: dict[int, str] = {}
        self.files: dict[int, str] = {}  # program or instance id -> the program's filename
        self.program_source: str | None = None  # the one program a worker process serves
        self.next_id = 1
        self.armed = False
        self.use_alarm = threading.current_thread() is threading.main_thread()
        if self.use_alarm:
            signal.signal(signal.SIGALRM, self._on_alarm)
        self._operations: dict[str, Callable[..., dict]] = {
            "step": lambda iid, action: self._call(iid, "step", action),
            "reset": self._reset,
            "call": self._call,
            "new": self._new,
            "load": self._load,
            "close": self._close,
            "unload": self._unload,
            "ping": lambda: ok_answer("pong"),
        }

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self.armed:  # a signal that arrives after disarming is ignored
            raise Deadline()

    # -- the armed window ---------------------------------------------------------------------

    def _arm(self, seconds: float) -> None:
        if self.use_alarm:
            signal.setitimer(signal.ITIMER_REAL, seconds, ALARM_REPEAT)
            self.armed = True
        if self.process:
            signal.setitimer(signal.ITIMER_PROF, seconds + self.kill_grace + 1.0, 0)
            gc.enable()

    def _disarm(self) -> None:
        if self.process:
            gc.disable()
            signal.setitimer(signal.ITIMER_PROF, 0)
        if self.use_alarm:
            self.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)

    # -- dispatch ---------------------------------------------------------------------------

    def handle(self, request: dict) -> dict:
        """Serve one request under its deadline; the response is a plain JSON dict."""
        op = request.get("op")
        seconds = protocol.deadline(op, self.call_timeout, self.load_timeout)
        try:
            self._arm(seconds)
            try:
                return self._dispatch(op, request)
            except Exception as exc:  # a bug of ours, or program code reaching our code
                return error_answer(
                    "protocol", f"the worker failed on {op!r} ({type(exc).__name__})"
                )
            except Deadline:
                # Past the deadline outside a call's own handling (a finalizer, cleanup).
                iid = protocol.request_instance(request)
                if type(iid) is int and iid in self.instances:
                    self.broken[iid] = "timeout"
                return error_answer("timeout", f"{op} ran past the {seconds:g} s deadline.")
            finally:
                self._disarm()
        except Deadline:  # fired between the last check and disarming: the answer stands lost
            self._disarm()
            return error_answer("timeout", f"{op} ran past the {seconds:g} s deadline.")

    def _dispatch(self, op: Any, request: dict) -> dict:
        try:
            _, args = protocol.request_args(request)
            if args is not None:
                return self._operations[op](*args)
        except (KeyError, TypeError) as exc:
            return error_answer("protocol", f"malformed request ({type(exc).__name__})")
        return error_answer("protocol", f"unknown operation {str(op)[:40]!r}")

    # -- operations -------------------------------------------------------------------------

    def _load(self, source: str, filename: str) -> dict:
        from spadegym.policy import load_program  # imported before isolation, cached here

        if type(source) is not str or type(filename) is not str:
            return error_answer("protocol", "source and filename must be str")
        # The text itself identifies the program (hashlib would cost the worker's start time).
        if self.process and self.program_source not in (None, source):
            return error_answer(
                "protocol",
                "this worker already serves another program; a worker process holds one "
                "program only (start another worker for this one).",
            )
        try:
            loaded = load_program(source, filename)
            cls = loaded.env_class
            facts = _class_facts(cls)
            class_name = loaded.class_name if type(loaded.class_name) is str else "?"
        except PolicyError as exc:
            return error_answer("policy", "; ".join(str(e) for e in exc.errors))
        except Deadline:
            return error_answer(
                "timeout",
                f"module code ran past {self.load_timeout:g} s at load time; "
                "module-level code may only define things.",
            )
        except BaseException as exc:  # the program's own failure, reported as data
            return error_answer("exception", self._describe(exc, filename, "loading the module"))
        if self.process:
            self.program_source = source
        pid = self._id()
        self.programs[pid] = cls
        self.files[pid] = filename
        return ok_answer({"program": pid, "class": class_name, **facts})

    def _close(self, iid: int) -> dict:
        self.broken.pop(iid, None)
        self.files.pop(iid, None)
        self.instances.pop(iid, None)  # finalizers run here, armed
        return ok_answer(None)

    def _unload(self, pid: int) -> dict:
        self.files.pop(pid, None)
        self.programs.pop(pid, None)
        return ok_answer(None)

    def _new(self, pid: int) -> dict:
        cls = self.programs.get(pid)
        if cls is None:
            return error_answer("protocol", f"no program {pid!r} in this worker")
        try:
            instance = cls()
        except Deadline:
            return error_answer(
                "timeout", f"creating the environment ran past {self.load_timeout:g} s."
            )
        except BaseException as exc:
            return error_answer(
                "exception", self._describe(exc, self.files[pid], f"{cls.__name__}()")
            )
        iid = self._id()
        self.instances[iid] = instance
        self.files[iid] = self.files[pid]
        return ok_answer(iid)

    def _reset(self, iid: int, seed: Any, options: Any) -> dict:
        if seed is not None and type(seed) is not int:
            return error_answer("protocol", "seed must be an int or None")
        if options is not None and type(options) is not dict:
            return error_answer("protocol", "options must be a dict or None")
        self.broken.pop(iid, None)
        return self._call(iid, "reset", seed, options)

    def _call(self, iid: int, method: str, *args: Any) -> dict:
        instance = self.instances.get(iid)
        if instance is None:
            return error_answer("protocol", f"no environment instance {iid!r} in this worker")
        if iid in self.broken and method != "reset":
            return error_answer(
                "broken",
                f"the environment failed earlier ({self.broken[iid]}); "
                "call reset() before using it again.",
            )
        check = _CHECKS.get(method)
        if check is None:
            return error_answer("protocol", f"method {str(method)[:40]!r} cannot be called")
        if method == "step" and (
            type(args[0]) is not str or len(args[0]) > contract.MAX_ACTION_CHARS
        ):
            return error_answer(
                "protocol",
                f"actions are str of at most {contract.MAX_ACTION_CHARS} characters",
            )
        try:
            bound = getattr(instance, method, None)
            if bound is None:
                return error_answer("missing", f"the environment has no {method}() method.")
            return ok_answer(check(bound(*args)))
        except Deadline:
            self.broken[iid] = "timeout"
            return error_answer(
                "timeout", f"{method}() ran past the {self.call_timeout:g} s deadline."
            )
        except ContractViolation as exc:
            self.broken[iid] = "contract"
            return error_answer("contract", str(exc))
        except BaseException as exc:
            self.broken[iid] = "exception"
            return error_answer(
                "exception", self._describe(exc, self.files.get(iid, ""), f"{method}()")
            )

    def _describe(self, exc: BaseException, filename: str, during: str) -> str:
        # str(exc) may run the program's own __str__ (on its exception, or on an argument):
        # it runs inside the request's deadline window, and a failure of its own only loses
        # the text.
        try:
            return _describe(exc, filename, during)
        except Deadline:
            raise  # the request's deadline: reported as a timeout
        except BaseException:
            return f"{during} raised {type(exc).__name__}{_program_line(exc, filename)}"

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1


_CHECKS = {
    "step": check_step,
    "reset": check_reset,
    "solution": check_solution,
    "hint": check_hint,
}


def _class_facts(cls: type) -> dict:
    """What the host needs to know about a program's env class, as plain values.

    Runs under the load deadline (reading a class attribute can run program code) and caps
    the ``tools`` declaration while walking it.
    """
    facts: dict[str, Any] = {}
    doc = cls.__dict__.get("__doc__")
    # A docstring written out fits the program; a computed one is cut to that size.
    facts["doc"] = doc[: contract.MAX_PROGRAM_BYTES] if type(doc) is str else None
    for name in ("max_turns", "num_players"):
        value = getattr(cls, name, None)
        facts[name] = value if type(value) is int else None
    skill = getattr(cls, "skill", None)
    facts["skill"] = skill[:MAX_SKILL_CHARS] if type(skill) is str else None
    for method in ("reset", "step", "solution", "hint", "check"):
        facts[f"has_{method}"] = callable(getattr(cls, method, None))
    from spadegym.program import ToolEnv

    facts["tool_env"] = isinstance(cls, type) and issubclass(cls, ToolEnv)
    tools = getattr(cls, "tools", None) if facts["tool_env"] else None
    try:
        facts["tools"] = (
            plain_json(tools, "tools", limit=protocol.MAX_TOOLS_BYTES)
            if tools is not None
            else None
        )
    except ContractViolation:
        facts["tools"] = None
    return facts


def _describe(exc: BaseException, filename: str, during: str) -> str:
    """A sentence about a program's exception (called while the deadline is armed)."""
    name = type(exc).__name__
    if type(name) is not str:
        name = "an exception"
    if isinstance(exc, RecursionError):
        return f"{during} recursed too deeply{_program_line(exc, filename)}."
    if isinstance(exc, MemoryError):
        return f"{during} ran out of memory{_program_line(exc, filename)}."
    try:
        text = str(exc)  # a program's exception class may define __str__
    except Deadline:
        raise
    except BaseException:
        text = "(its message could not be read)"
    if type(text) is not str:
        text = ""
    if len(text) > 300:
        text = text[:300] + "..."
    return f"{during} raised {name}{_program_line(exc, filename)}: {text}"
