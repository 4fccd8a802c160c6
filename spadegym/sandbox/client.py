"""The host side of the sandbox: start workers, exchange frames, turn responses into results.

``SandboxWorker`` owns one worker process and serves many environment instances through it.
``InProcessWorker`` offers the same methods without a process (``isolation="none"``, for trusted
programs). Program failures come back as ``ProgramError`` (or, in batches, as values); the host
re-checks every value against the contract, since a worker is not trusted either.
"""

from __future__ import annotations

import abc
import hashlib
import importlib.util
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Any

from spadegym import leftovers
from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox import protocol
from spadegym.sandbox.config import SandboxConfig

WORKER_DIR_PREFIX = "spadegym-worker-"
"""Each worker's temporary working folder: ``spadegym-worker-<host pid>-<host>-<random>``."""

# The worker imports its few modules directly: empty package stubs keep the packages'
# ``__init__`` (Gymnasium, the host-side client) out of it, which halves its start time.
_BOOT = (
    "import sys,json,types;a=json.loads(sys.argv[1]);sys.path[:0]=a['path']\n"
    "for n,d in (('spadegym',a['pkg']),('spadegym.sandbox',a['pkg']+'/sandbox')):\n"
    " m=types.ModuleType(n);m.__path__=[d];sys.modules[n]=m\n"
    "from spadegym.sandbox.worker import main;main(a['settings'])"
)


SPIN_SECONDS = 50e-6
"""How long the host polls a worker's pipe without sleeping before it waits in poll()."""


@dataclass(frozen=True)
class ProgramInfo:
    """What a worker reports about a loaded program's environment class."""

    program: int
    class_name: str
    doc: str | None
    max_turns: int | None
    num_players: int | None
    skill: str | None
    has_reset: bool
    has_step: bool
    has_solution: bool
    has_hint: bool
    has_check: bool
    tool_env: bool
    tools: Any

    @classmethod
    def from_wire(cls, value: dict) -> ProgramInfo:
        """Build from a worker's ``load`` answer (checked field by field)."""
        try:
            return cls(
                program=int(value["program"]),
                class_name=str(value["class"]),
                **{
                    k: value[k]
                    for k in (
                        "doc",
                        "max_turns",
                        "num_players",
                        "skill",
                        "has_reset",
                        "has_step",
                        "has_solution",
                        "has_hint",
                        "has_check",
                        "tool_env",
                        "tools",
                    )
                },
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SandboxError(f"malformed load answer from a worker ({exc})") from exc


@dataclass(frozen=True)
class StepResult:
    """One step of one environment instance."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict


def _worker_path() -> tuple[list[str], str]:
    """The import path a worker needs: spadegym's parent and RestrictedPython's."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = [os.path.dirname(pkg)]
    for name in ("RestrictedPython",):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            root = os.path.dirname(spec.origin)
            if spec.submodule_search_locations:  # a package: its parent folder
                root = os.path.dirname(root)
            if root not in paths:
                paths.append(root)
    return paths, pkg


def worker_environment() -> dict[str, str]:
    """The whole environment a worker gets: nothing of the host's (no secrets, no paths)."""
    return {
        "PYTHONHASHSEED": "0",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
    }


def _result(response: Any, what: str) -> Any:
    """The value of an ``ok`` response, else a ``ProgramError`` carrying the worker's message."""
    if not isinstance(response, dict):
        raise SandboxError(f"malformed response to {what}: {type(response).__name__}")
    if response.get("ok") is True:
        return response.get("v")
    kind, message = response.get("kind"), response.get("msg")
    if not isinstance(kind, str) or not isinstance(message, str):
        raise SandboxError(f"malformed error response to {what}")
    if kind == "protocol":
        raise SandboxError(f"the worker refused {what}: {message}")
    raise ProgramError(message, kind)


def _check(value: Any, checker: Any) -> Any:
    try:
        return checker(value)
    except protocol.ContractViolation as exc:
        raise ProgramError(str(exc), "contract") from None


def reset_result(response: dict | ProgramError) -> tuple[str, dict] | ProgramError:
    """A reset response as a checked ``(observation, info)``, or the ``ProgramError`` value."""
    if isinstance(response, ProgramError):
        return response
    try:
        return tuple(_check(_result(response, "reset"), protocol.check_reset))
    except ProgramError as exc:
        return exc


class _Operations(abc.ABC):
    """The operations on programs and instances, over ``_exchange`` (one response a request)."""

    @abc.abstractmethod
    def _exchange(self, requests: list[dict], timeout: float) -> list[dict | ProgramError]:
        """Answer each request, in order; a lost answer is a ``ProgramError`` value."""

    config: SandboxConfig

    def _one(self, request: dict, timeout: float) -> Any:
        (response,) = self._exchange([request], timeout)
        if isinstance(response, ProgramError):
            raise response
        return _result(response, request["op"])

    def ping(self) -> str:
        """A round trip that runs no program code."""
        return self._one({"op": "ping"}, self.config.call_timeout)

    def load_cached(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """``load``, once per program text and worker generation."""
        cache = self.__dict__.setdefault("_programs", {})
        key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        cached = cache.get(key)
        if cached is None or cached[0] != self.generation:
            cached = cache[key] = (self.generation, self.load(source, filename))
        return cached[1]

    def load(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """Compile and load a program; raises ``ProgramError`` (kind ``policy`` etc.)."""
        value = self._one(
            {"op": "load", "source": source, "filename": filename}, self.config.load_timeout
        )
        return ProgramInfo.from_wire(value)

    def new(self, program: int) -> int:
        """Create an instance of a loaded program's env class; returns its instance id."""
        value = self._one({"op": "new", "p": program}, self.config.load_timeout)
        if type(value) is not int:
            raise SandboxError("malformed instance id from a worker")
        return value

    def reset(
        self, instance: int, seed: int | None = None, options: dict | None = None
    ) -> tuple[str, dict]:
        """Call the instance's ``reset``; returns ``(observation, info)``."""
        value = self._one(
            {"op": "reset", "i": instance, "seed": seed, "options": options},
            self.config.call_timeout,
        )
        obs, info = _check(value, protocol.check_reset)
        return obs, info

    def step(self, instance: int, action: str) -> StepResult:
        """Call the instance's ``step`` with one action."""
        value = self._one({"op": "step", "i": instance, "a": action}, self.config.call_timeout)
        return StepResult(*_check(value, protocol.check_step))

    def step_many(self, items: list[tuple[int, str]]) -> list[StepResult | ProgramError]:
        """Step several instances of this worker in one exchange; failures come back as values."""
        requests = [{"op": "step", "i": iid, "a": action} for iid, action in items]
        return self.step_results(self._exchange(requests, self.config.call_timeout))

    def step_results(self, responses: list[dict | ProgramError]) -> list[StepResult | ProgramError]:
        """Turn step responses into checked ``StepResult`` values or ``ProgramError`` values."""
        results: list[StepResult | ProgramError] = []
        for response in responses:
            if isinstance(response, ProgramError):
                results.append(response)
                continue
            try:
                results.append(StepResult(*_check(_result(response, "step"), protocol.check_step)))
            except ProgramError as exc:
                results.append(exc)
        return results

    def solution(self, instance: int) -> list[str]:
        """Call the instance's ``solution``."""
        value = self._one({"op": "call", "i": instance, "m": "solution"}, self.config.call_timeout)
        return _check(value, protocol.check_solution)

    def hint(self, instance: int) -> str:
        """Call the instance's ``hint``."""
        value = self._one({"op": "call", "i": instance, "m": "hint"}, self.config.call_timeout)
        return _check(value, protocol.check_hint)

    def close_instance(self, instance: int) -> None:
        """Forget an instance (best effort: a dead worker has already forgotten it)."""
        try:
            self._one({"op": "close", "i": instance}, self.config.call_timeout)
        except (ProgramError, SandboxError):
            pass


class InProcessWorker(_Operations):
    """Runs programs in this process under the restricted policy only (``isolation="none"``).

    For trusted programs. Soft deadlines work only when used from the main thread; there is no
    hard kill, no memory limit and no file or network isolation.
    """

    generation = 0
    layers: dict = {}

    def __init__(self, config: SandboxConfig | None = None):
        from spadegym.sandbox.runtime import Runtime

        self.config = config or SandboxConfig(isolation="none")
        self.runtime = Runtime(self.config.call_timeout, self.config.load_timeout)

    def _exchange(self, requests: list[dict], timeout: float) -> list[dict | ProgramError]:
        # A JSON round trip keeps in-process results identical to what a worker would send.
        return [protocol.decode(protocol.encode(self.runtime.handle(r))[4:]) for r in requests]

    def close(self) -> None:
        """Drop every program and instance."""
        self.runtime.programs.clear()
        self.runtime.instances.clear()
        self.runtime.files.clear()


class SandboxWorker(_Operations):
    """One isolated worker process serving many environment instances.

    The process starts on first use and again after it dies or is killed for a hard timeout;
    ``generation`` counts the processes ended, so holders of instance ids can tell theirs are gone.
    """

    def __init__(self, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()
        self.generation = 0
        self.layers: dict = {}
        self.last_failure = ""
        self._proc: subprocess.Popen | None = None
        self._tmp: str | None = None
        self._buf = bytearray()
        self._poll: select.poll | None = None

    # -- process life -------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Whether the worker process is running."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the worker process (if not running) and read its isolation report."""
        if self.alive:
            return
        self._discard()
        paths, pkg = _worker_path()
        settings = {k: v for k, v in asdict(self.config).items() if k != "isolation"}
        arg = json.dumps({"path": paths, "pkg": pkg, "settings": settings})
        # The folder is named after this process, so that the next host to start removes the
        # folders of a host that was killed (and never those of a live one).
        leftovers.remove_dead_once(tempfile.gettempdir(), WORKER_DIR_PREFIX)
        self._tmp = tempfile.mkdtemp(prefix=leftovers.temp_prefix(WORKER_DIR_PREFIX))
        env = worker_environment()
        stderr = None if os.environ.get("SPADEGYM_SANDBOX_DEBUG") else subprocess.DEVNULL
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _BOOT, arg],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=self._tmp,
                env=env,
                close_fds=True,
                start_new_session=True,
                bufsize=0,
            )
        except OSError as exc:
            raise SandboxError(
                f"could not start a sandbox worker with {sys.executable}: {exc}"
            ) from exc
        os.set_blocking(self._proc.stdout.fileno(), False)
        self._poll = select.poll()
        self._poll.register(self._proc.stdout.fileno(), select.POLLIN | select.POLLHUP)
        deadline = time.monotonic() + max(self.config.load_timeout, 30.0)
        hello = self._read_frame(deadline)
        if not isinstance(hello, dict) or hello.get("ok") is not True:
            code = self.kill()
            raise SandboxError(
                f"the sandbox worker failed to start ({self.last_failure or code});"
                " run with SPADEGYM_SANDBOX_DEBUG=1 to see its error output."
            )
        self.layers = hello["v"].get("layers", {})
        missing = [name for name, layer in self.layers.items() if not layer.get("active")]
        if missing and self.config.require_isolation:
            self.kill()
            raise SandboxError(
                f"isolation layers not active: {', '.join(missing)} "
                f"({'; '.join(self.layers[m]['detail'] for m in missing)}); run `spadegym "
                "doctor`, or set require_isolation=False to accept the layers that are active."
            )

    def peak_memory_mb(self) -> float | None:
        """The worker's peak resident memory (VmHWM) in MiB, where /proc tells it."""
        if not self.alive:
            return None
        try:
            with open(f"/proc/{self._proc.pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def close(self) -> None:
        """Stop the worker process and remove its temporary folder."""
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> int | None:
        """Stop the worker process at once (no graceful exit) and remove its folder.

        Returns:
            The process's exit status, or ``None`` if there was no process or it did not end.
        """
        code = None
        if self._proc is not None:
            self.generation += 1  # every instance in the process is gone with it
            if self._proc.poll() is None:
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self._proc.kill()
            try:
                code = self._proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                code = None
        self._discard()
        return code

    def _discard(self) -> None:
        if self._proc is not None:
            for stream in (self._proc.stdin, self._proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        self._proc = None
        self._poll = None
        self._buf.clear()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __del__(self) -> None:
        try:
            self.kill()
        except Exception:  # interpreter shutdown: nothing sensible left to do
            pass

    # -- frames -------------------------------------------------------------------------------

    def _read_frame(self, deadline: float) -> Any:
        """Read one frame before ``deadline``; ``None`` on timeout, EOF or a bad frame."""
        fd = self._proc.stdout.fileno()
        need = None
        spin_until = None
        while True:
            if need is None and len(self._buf) >= 4:
                (need,) = protocol.HEADER.unpack_from(self._buf)
                if need > protocol.MAX_RESPONSE_BYTES:
                    self.last_failure = f"a response frame of {need} bytes"
                    return None
            if need is not None and len(self._buf) >= 4 + need:
                body = bytes(self._buf[4 : 4 + need])
                del self._buf[: 4 + need]
                try:
                    return protocol.decode(body)
                except ValueError as exc:
                    self.last_failure = f"an undecodable frame ({exc})"
                    return None
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                # Spin briefly before sleeping in poll(): a step answers in tens of
                # microseconds, and waking up from poll() costs about as much again.
                now = time.perf_counter()
                if spin_until is None:
                    spin_until = now + SPIN_SECONDS
                if now < spin_until:
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._poll.poll(max(1, int(remaining * 1000))):
                    self.last_failure = "timeout"
                    return None
                continue
            if not chunk:
                self.last_failure = "the worker exited"
                return None
            self._buf += chunk

    def _exchange(self, requests: list[dict], timeout: float) -> list[dict | ProgramError]:
        failed = self.send(requests)
        return failed if failed is not None else self.receive(requests, timeout)

    def send(self, requests: list[dict]) -> list[ProgramError] | None:
        """Write one frame (a batch when several requests); failures if the worker is dead."""
        if self._proc is None:
            self.start()
        message = requests[0] if len(requests) == 1 else {"batch": requests}
        try:
            data = protocol.encode(message)
        except (ValueError, TypeError) as exc:
            raise SandboxError(f"could not encode a request: {exc}") from exc
        try:
            fd = self._proc.stdin.fileno()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            code = self.kill()
            failure = ProgramError(
                f"the sandbox worker had died (exit {code}); it will restart.", "crash"
            )
            return [failure] * len(requests)
        return None

    def receive(self, requests: list[dict], timeout: float) -> list[dict | ProgramError]:
        """Read one response per request; after a hard failure the rest come back as lost."""
        responses: list[dict | ProgramError] = []
        for request in requests:
            response = self._read_frame(time.monotonic() + timeout + self.config.kill_grace)
            if response is None:
                responses.append(self._failure(request))
                break
            responses.append(response)
        lost = ProgramError(
            "not run: another call in the same batch broke the worker, which was "
            "restarted; reset this environment.",
            "lost",
        )
        responses += [lost] * (len(requests) - len(responses))
        return responses

    def _failure(self, request: dict) -> ProgramError:
        """Kill the worker after a hard timeout, a crash or a bad frame; describe what happened."""
        what = request.get("m") or request.get("op")
        reason = self.last_failure
        code = self.kill()
        if reason == "timeout":
            return ProgramError(
                f"{what}() did not return within the deadline and could not be "
                "interrupted; the worker was killed and restarted.",
                "timeout",
            )
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return ProgramError(
                f"the worker died with signal {name} during {what}() (a memory "
                "or CPU limit, or a crash); it will restart.",
                "crash",
            )
        return ProgramError(
            f"the worker broke the protocol during {what}() ({reason}); it was "
            "killed and will restart.",
            "crash",
        )
