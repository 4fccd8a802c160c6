"""The runtime watchdog: a program that changes after many instances is caught while it runs.

Validation plays a program about a hundred times in a fresh worker. A program whose state is
shared between instances (a class attribute, a module list) can behave until then and change
later in a long-lived worker: every reply wins after 400 episodes, or ``reset()`` becomes
thousands of times slower after 300. No battery can see that, so a pool watches each program
as it serves it, in two ways:

- **Timing, on the hot path.** The pool times every exchange it already makes (two clock reads,
  no extra round trip). A batch's wall time divided by the most calls one worker of a program
  had in it bounds that program's mean call time from above; a batch no slower than the
  smallest budget is dismissed with one comparison. A program whose bound exceeds its budget
  in ``suspect_after`` batches of one kind (resets or steps) is only *suspected*: a slow batch
  may be a loaded machine or a slow batch-mate. The verdict is a probe (below), timed call by
  call in its own exchanges, where a call is over budget only when it took longer than the
  budget both in wall time and in the worker's CPU time (``/proc``), as validation times calls:
  programs have no clock to wait on, so a slow call computes, and a call that only waited for a
  busy machine is never held against its program. A probe that meets a slow call is played
  again on a fresh instance, and only two slow plays in a row quarantine.
- **Probe replay.** When the pool first resets a program, the watchdog records a transcript on a
  fresh instance: a seed drawn at random, then the fixed ``probe_replies`` until the episode
  ends, with every observation, reward and end flag. Every ``probe_every`` episodes of the
  program in one worker it replays the transcript on a fresh instance in that same worker; a
  different answer means the program changed as it ran (state shared between instances). The
  replies are ones that win no sane game, so a program that lets every reply win after a while
  differs at its first step.

The budget (``WatchdogConfig``): a program whose validation report gave its slowest call gets
``budget_multiple`` times that, at least ``budget_floor`` and at most ``step_budget``; one
without gets ``step_budget``, what validation lets any call take. A breach quarantines the
program in its pool (``SandboxPool.quarantine``): every later call fails at once with a
``ProgramError`` of kind ``"quarantined"`` that says what changed, the trainer drops it from
its pool and counts it as a failure for its designer.
"""

from __future__ import annotations

import os
import random
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ConfigError, ProgramError
from spadegym.sandbox import protocol
from spadegym.sandbox.answers import StepResult, answer_or_error

__all__ = ["Transcript", "Watchdog", "WatchdogConfig", "expect_report"]

TIMED_OPS = frozenset({"reset", "step"})
"""The calls held to the budget (validation's ``TIMED_OPS``)."""

INCONCLUSIVE = frozenset({"lost", "crash", "sandbox"})
"""Failure kinds that say nothing about the program's behaviour (the worker went away)."""

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class WatchdogConfig:
    """How a pool watches the programs it serves (see the module)."""

    step_budget: float = 0.5
    """Seconds one ``reset``/``step`` may take when validation's timings of the program are not
    known, and the most any budget allows: ``ValidationConfig.step_budget``'s default, so a
    program is held at run time to what validation held it to."""

    budget_multiple: float = 50.0
    """A program whose validation report gave its slowest call (``step_ms_max``) gets this many
    times that as its budget. Validation's slowest call of a typical program is well under a
    millisecond; CPU time under load grows by small factors (caches, frequency), never by
    fifty, while the slowdowns worth catching are of hundreds to thousands."""

    budget_floor: float = 0.05
    """The smallest budget, in seconds: five ticks of the CPU clock (10 ms on Linux), so that a
    call's CPU time can be told from the budget, and room for a sub-millisecond program."""

    suspect_after: int = 3
    """Batches whose timing bound exceeds a program's budget before it is probed (one slow
    batch is usually a loaded machine or a slow batch-mate, and costs nothing)."""

    probe_every: int = 100
    """Episodes (resets) of a program in one worker between probe replays. A probe is two round
    trips (0.6 to 2 ms for a typical program on two loaded cores): every hundred episodes that
    is 1 to 3% of the sandbox's share of the shortest episodes (a reset and three steps of a
    sub-millisecond program in 64-instance batches), nothing measurable next to a model's
    replies; a program that changes is caught within a hundred episodes of the change."""

    probe_replies: tuple[str, ...] = ("0", "yes", "\\boxed{A}")
    """The replies of the probe transcript, played in order until the episode ends."""

    def __post_init__(self) -> None:
        if not (0 < self.budget_floor <= self.step_budget) or self.budget_multiple <= 0:
            raise ConfigError(
                f"budget_floor={self.budget_floor!r}, step_budget={self.step_budget!r}, "
                f"budget_multiple={self.budget_multiple!r}: need 0 < budget_floor <= "
                "step_budget and a positive multiple."
            )
        if self.suspect_after < 1 or self.probe_every < 1 or not self.probe_replies:
            raise ConfigError(
                "suspect_after and probe_every must be >= 1 and probe_replies not empty "
                "(to turn the watchdog off, give the pool watchdog=None)."
            )


@dataclass(frozen=True)
class Transcript:
    """A recorded probe play: its seed and replies, and what each call answered.

    Attributes:
        seed: the reset seed.
        replies: the replies sent after the reset, in order.
        frames: per call (the reset first), ``(observation, reward, terminated, truncated)``,
            or ``("error", kind)`` for a call that failed (the play stops there).
    """

    seed: int
    replies: tuple[str, ...]
    frames: tuple[tuple[Any, ...], ...]


@dataclass(eq=False)
class _Watch:
    """What the watchdog knows of one program."""

    label: str
    budget: float
    why: str
    transcript: Transcript | None = None
    suspect: dict[str, int] = field(default_factory=dict)
    episodes: weakref.WeakKeyDictionary[Any, int] = field(default_factory=weakref.WeakKeyDictionary)
    due_at: weakref.WeakKeyDictionary[Any, int] = field(default_factory=weakref.WeakKeyDictionary)


class Watchdog:
    """Per program: its budget, its probe transcript, its episodes per worker (see the module).

    The pool calls ``count_resets`` before a batch of resets and ``observe`` after each
    exchange; both return the handles whose program must be probed, and ``probe`` returns the
    breach (a ``ProgramError`` of kind ``"quarantined"``) or None.

    Args:
        config: the budgets and the probe schedule.
    """

    def __init__(self, config: WatchdogConfig | None = None):
        self.config = config or WatchdogConfig()
        self.fastest = self.config.budget_floor
        """The smallest budget: a batch no slower than this needs no look (``observe``)."""
        self._watches: dict[str, _Watch] = {}
        self._expected: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def expect(
        self, digest: str, slowest_ms: float | None, step_budget: float | None = None
    ) -> None:
        """Set a program's budget from its validation: its slowest call, and the step budget.

        Args:
            digest: the program's sha256 (``handle.program_digest``).
            slowest_ms: the slowest ``reset``/``step`` validation timed (``step_ms_max``).
            step_budget: the validation's ``step_budget`` (default: the config's).
        """
        cap = min(step_budget or self.config.step_budget, self.config.step_budget)
        if slowest_ms is None:
            budget, why = cap, "the validation's step budget"
        else:
            floor = min(self.config.budget_floor, cap)
            scaled = self.config.budget_multiple * slowest_ms / 1000
            budget = min(cap, max(floor, scaled))
            why = (
                f"{self.config.budget_multiple:g} x the slowest call validation timed, "
                f"{slowest_ms:g} ms, within [{floor:g} s, {cap:g} s]"
            )
        with self._lock:
            self.fastest = min(self.fastest, budget)
            self._expected[digest] = (budget, why)
            watch = self._watches.get(digest)
            if watch is not None:
                watch.budget, watch.why = budget, why

    def _watch(self, handle: Any) -> _Watch:
        watch = self._watches.get(handle.digest)
        if watch is None:
            with self._lock:
                budget, why = self._expected.get(
                    handle.digest, (self.config.step_budget, "the validation's step budget")
                )
                watch = self._watches.setdefault(
                    handle.digest, _Watch(handle.filename, budget, why)
                )
        return watch

    def count_resets(self, handles: Sequence[Any]) -> list[Any]:
        """Count an episode per handle; the handles (one per worker) whose probe is due.

        The first episode of a program in the pool records its transcript; then every
        ``probe_every`` episodes of it in one worker replay it there.
        """
        per_worker: dict[int, list[Any]] = {}  # a worker serves one program
        for handle in handles:
            entry = per_worker.get(id(handle.worker))
            if entry is None:
                per_worker[id(handle.worker)] = [handle, 1]
            else:
                entry[1] += 1
        due = []
        every = self.config.probe_every
        for handle, added in per_worker.values():
            watch = self._watch(handle)
            worker = handle.worker
            count = watch.episodes.get(worker, 0)
            watch.episodes[worker] = count + added
            # The first multiple of probe_every this batch's episodes reach, if any.
            multiple = -(-max(count, 1) // every) * every
            if watch.transcript is None or multiple < count + added:
                due.append(handle)
                watch.due_at[worker] = count  # episodes served before the probe
        return due

    def observe(self, items: Sequence[tuple[Any, dict[str, Any]]], seconds: float) -> list[Any]:
        """Take one exchange's wall time; the handles whose program is now suspect enough.

        Args:
            items: the exchange's ``(handle, request)`` pairs.
            seconds: its wall time.
        """
        if seconds <= self.fastest:  # no program can be over budget: the usual case
            return []
        most: dict[tuple[str, str], tuple[int, Any]] = {}
        calls: dict[tuple[int, str], int] = {}
        for handle, request in items:
            op = request.get("op")
            if op in TIMED_OPS:
                key = (id(handle.worker), op)
                calls[key] = calls.get(key, 0) + 1
                program = (handle.digest, op)
                if most.get(program, (0, None))[0] < calls[key]:
                    most[program] = (calls[key], handle)
        suspects = []
        for (_, op), (count, handle) in most.items():
            watch = self._watch(handle)
            if seconds / count > watch.budget:
                watch.suspect[op] = watch.suspect.get(op, 0) + 1
                if watch.suspect[op] >= self.config.suspect_after:
                    watch.suspect.clear()
                    suspects.append(handle)
        return suspects

    def probe(self, handle: Any) -> ProgramError | None:
        """Record or replay the program's transcript on a fresh instance in ``handle``'s worker.

        Returns:
            The breach, as the ``ProgramError`` the quarantine will raise, or None (it behaved,
            or the worker failed in a way that says nothing about the program).
        """
        watch = self._watch(handle)
        worker = handle.worker
        episodes = watch.due_at.pop(worker, None)
        if episodes is None:
            episodes = watch.episodes.get(worker, 0)
        try:
            program = worker.load_cached(handle.source, handle.filename).program
            transcript = watch.transcript
            seed = transcript.seed if transcript else random.randrange(2**31 - 1)
            replies = self.config.probe_replies
            if transcript is not None:
                replies = replies[: len(transcript.frames) - 1]
            frames, slow = _play(worker, program, seed, replies, watch.budget)
            if slow is not None and slow[3]:  # one slow play may be bad luck: once more
                frames, slow = _play(worker, program, seed, replies, watch.budget)
        except ProgramError:
            return None  # the regular calls report a program that no longer loads
        if slow is not None:
            return _slow(watch, slow, episodes)
        if frames and len(frames[-1]) == 2 and frames[-1][1] in INCONCLUSIVE:
            return None
        if transcript is None:
            watch.transcript = Transcript(seed, replies, tuple(frames))
            return None
        return _compare(transcript, frames, episodes, watch.label)


def _play(
    worker: Any, program: int, seed: int, replies: Sequence[str], budget: float
) -> tuple[list[tuple[Any, ...]], tuple[str, float, float | None, bool] | None]:
    """Play the probe on a fresh instance: reset, then the replies until the episode ends.

    Two round trips: ``new``, then one frame holding the reset, the replies and the close. The
    worker answers each request as soon as it is done, so the time between two answers is the
    time of one call.

    Returns:
        The frames, and ``(call, wall seconds, CPU seconds, again)`` of the first call over
        budget (``again``: worth playing once more; a timeout is not), or None.
    """
    instance = worker.new(program)
    requests = [protocol.reset_request(instance, seed)]
    requests += [protocol.step_request(instance, reply) for reply in replies]
    requests.append(protocol.close_request(instance))
    frames: list[tuple[Any, ...]] = []
    for request, (answer, wall, cpu) in zip(requests, _timed_calls(worker, requests)):
        if request["op"] == "close":
            break
        if isinstance(answer, ProgramError) and answer.kind == "timeout":
            return frames, (_name(request), wall, cpu, False)
        if _over(wall, cpu, budget):
            return frames, (_name(request), wall, cpu, True)
        if isinstance(answer, ProgramError):
            frames.append(("error", answer.kind))  # two items: a failure's frame
            break
        if isinstance(answer, StepResult):
            frames.append((answer.observation, answer.reward, answer.terminated, answer.truncated))
            if answer.terminated or answer.truncated:
                break
        else:
            frames.append((answer[0], None, False, False))
    return frames, None


def _timed_calls(
    worker: Any, requests: list[dict[str, Any]]
) -> list[tuple[Any, float, float | None]]:
    """Each request's checked answer, wall time and CPU time (None where unknown)."""
    receive = getattr(worker, "receive", None)
    cpu = _cpu_seconds(worker)
    last = time.perf_counter()
    if receive is not None:
        failed = worker.send(requests)
        if failed is not None:
            return [(error, 0.0, None) for error in failed]
    timed: list[tuple[Any, float, float | None]] = []
    for request in requests:
        (raw,) = receive([request]) if receive is not None else worker.exchange([request])
        now, used = time.perf_counter(), _cpu_seconds(worker)
        spent = None if cpu is None or used is None else max(0.0, used - cpu)
        timed.append((answer_or_error(request, raw), now - last, spent))
        last, cpu = now, used
        if isinstance(raw, ProgramError) and not getattr(worker, "alive", True):
            lost = ProgramError("not run: the worker was killed earlier in the probe", "lost")
            return timed + [(lost, 0.0, None)] * (len(requests) - len(timed))
    return timed


def _slow(watch: _Watch, slow: tuple[Any, ...], episodes: int) -> ProgramError:
    """The breach of a call over budget."""
    what, wall, cpu, _ = slow
    computing = f" ({cpu:.2f} s of it computing)" if cpu is not None else ""
    if episodes:
        when = f"after {episodes} episodes of {watch.label} in its worker"
        why = "The program slows down as it runs (state kept between instances?): every"
    else:
        when, why = f"at the first use of {watch.label} in this pool", "Every"
    return _breach(
        f"{what} took {wall:.2f} s{computing} {when}; its budget is {watch.budget:g} s "
        f"({watch.why}). {why} call must stay as fast as when it was validated."
    )


def _over(wall: float, cpu: float | None, budget: float) -> bool:
    return wall > budget and (cpu is None or cpu > budget)


def _cpu_seconds(worker: Any) -> float | None:
    """CPU seconds the worker's process has used, or None where that cannot be read."""
    if not hasattr(worker, "receive"):  # in-process: the calls run in this thread
        return time.thread_time()
    pid = getattr(worker, "pid", None)
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            data = stat.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()  # after "pid (name) "
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime


def _name(request: dict[str, Any]) -> str:
    if request["op"] == "reset":
        return f"reset(seed={request.get('seed')!r})"
    return f"step({request.get('a')!r})"


def _compare(
    transcript: Transcript, frames: list[tuple[Any, ...]], episodes: int, label: str
) -> ProgramError | None:
    """The breach if the replay differs from the transcript, else None."""
    names = ("observation", "reward", "terminated", "truncated")
    for position, (then, now) in enumerate(zip(transcript.frames, frames)):
        if then == now:
            continue
        where = "the reset" if position == 0 else f"step {position}"
        if len(then) == 2 or len(now) == 2:  # a failure on either side
            change = f"{_outcome(now)} where it was {_outcome(then)}"
        else:
            k = next(i for i in range(4) if then[i] != now[i])
            change = f"{names[k]} {_short(now[k])} where it was {_short(then[k])}"
        return _changed(where, change, transcript, episodes, label)
    if len(frames) < len(transcript.frames):  # the replay sends no more replies than then
        change = f"the episode ended after {len(frames) - 1} replies where it went on"
        return _changed(f"step {len(frames)}", change, transcript, episodes, label)
    return None


def _changed(
    where: str, change: str, transcript: Transcript, episodes: int, label: str
) -> ProgramError:
    replies = list(transcript.replies[: max(0, len(transcript.frames) - 1)])
    return _breach(
        f"the probe replay of {label} differs at {where} after {episodes} episodes in its "
        f"worker: {change} when it was first loaded (seed {transcript.seed}, replies "
        f"{replies}). The program changes as it runs: instances must not share state "
        "(class attributes, module-level lists), and the same seed and replies must always "
        "give the same game."
    )


def _outcome(frame: tuple[Any, ...]) -> str:
    return f"a {frame[1]!r} failure" if len(frame) == 2 else "an answer"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _breach(message: str) -> ProgramError:
    return ProgramError(f"quarantined by the watchdog: {message}", "quarantined")


def expect_report(pool: Any, report: Any, step_budget: float | None = None) -> None:
    """Give ``pool``'s watchdog a validated program's timings (a no-op without a watchdog).

    Args:
        pool: a ``SandboxPool`` (a pool without a ``watchdog`` is left alone).
        report: the program's passing ``ValidationReport``.
        step_budget: the ``step_budget`` it was validated under.
    """
    from spadegym.sandbox.handle import program_digest

    watchdog = getattr(pool, "watchdog", None)
    if watchdog is not None and report.program:
        watchdog.expect(program_digest(report.program), report.properties.step_ms_max, step_budget)
