"""``generate``: write environments with a designer model, repair, validate, dedup, register.

For each candidate slot: sample a grounding document, build the design prompt (with frontier
examples, a negative and the nearby environments from the memory), ask the model, validate the
reply in the sandbox, send the failing checks back for up to ``max_repairs`` repair turns,
write a hint when the program has none, check novelty against the memory, and register.

Candidates run on a pool of threads: model calls are I/O and validation runs in worker
processes, so both overlap. With an ``executor`` (``"ray"``, say), validation runs there while
the model calls stay here; a candidate's thread waits for its verdict before it asks the model
for anything more, so at most ``concurrency`` replies await validation at once (backpressure:
a fast designer cannot flood the validators).

Every reply is appended to a JSONL run log the moment it arrives (before it is validated), so
a crash or Ctrl-C loses nothing; the plan of each slot depends only on the seed and the slot's
index, so running the same command again resumes: finished slots are read back from the log,
and replies already received are reused instead of asked for again. A replay backend skips the
replies the log already holds, so it continues where the killed run stopped. Each environment
counts once: a program registered by an earlier run (or earlier in this one) is a duplicate,
unless it is this very slot's, registered by a run killed before it logged its verdict.

Novelty is judged once, by ``Registry.admit``, inside the step that registers (see
``spadegym.registry.memory_link``).
"""

from __future__ import annotations

import errno
import hashlib
import json
import queue
import random
import re
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym import contract
from spadegym.contract import KINDS, SKILLS
from spadegym.corpus import Corpus, load_corpus
from spadegym.designer import hints
from spadegym.designer.candidates import Candidate, DesignTurn, GenerationReport
from spadegym.designer.commit import commit, extracted, failure, source_of
from spadegym.designer.prompt_examples import DesignContext, draw_context
from spadegym.designer.prompts import (
    design_messages,
    repair_messages,
)
from spadegym.designer.runlog import Prior, RunLog
from spadegym.designer.slots import Slot, plan_slot
from spadegym.errors import ConfigError, SpadegymError
from spadegym.llm.base import ChatLLM, LLMError, LLMUnreachableError, Message
from spadegym.llm.replay import ReplayChat
from spadegym.validation import ValidationConfig, ValidationReport, validate, validate_many
from spadegym.validation.executors import Executor, get_executor

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym.registry.interface import RegistryLike

__all__ = ["generate"]


# -- one candidate -------------------------------------------------------------------------


class _Run:
    """Everything a ``generate`` call shares across its candidate threads."""

    def __init__(
        self,
        llm: ChatLLM,
        corpus: Corpus,
        registry: RegistryLike,
        memory: MemoryLike | None,
        validation: ValidationConfig,
        max_repairs: int,
        write_hints: bool,
        log: RunLog,
        executor: Executor | None = None,
    ):
        self.llm = llm
        self.corpus = corpus
        self.registry = registry
        self.memory = memory
        self.validation = validation
        self.max_repairs = max_repairs
        self.write_hints = write_hints
        self.log = log
        self.executor = executor
        self.stop = threading.Event()
        self.stopped: str | None = None  # why the run stopped early, if it did
        # The memory's SQLite connection and FAISS index are shared by the threads, and the
        # novelty check must see every earlier registration: both go under one lock.
        self.store_lock = threading.Lock()
        self.registered: set[str] = set()

    def log_failed(self, exc: OSError) -> None:
        """Stop the run: its log cannot be written, so nothing more could be resumed."""
        why = "the disk is full (ENOSPC)" if exc.errno == errno.ENOSPC else str(exc)
        self.stopped = self.stopped or (
            f"the run log {self.log.path} cannot be written: {why}. What was registered stays "
            "registered; free some space and run the same command again to resume"
        )
        self.stop.set()

    def candidate(self, slot: Slot) -> Candidate:
        prior = self.log.prior.get(slot.index, Prior())
        cand = Candidate(
            slot.index, slot.skill, slot.kind, slot.difficulty, slot.document.id, self.corpus.name
        )
        if prior.final is not None:
            cand = _from_final(cand, prior.final)
            if cand.status == "error":
                self._recover(cand, prior)
            return cand
        started = time.perf_counter()
        try:
            self._design_and_register(cand, slot, prior)
        except Exception as exc:  # a bug or a broken store must not take the run down
            cand.status, cand.reason = "error", f"{type(exc).__name__}: {exc}"
        cand.seconds = time.perf_counter() - started
        if cand.status != "interrupted":
            self.log.write(
                {"event": "candidate", "candidate": cand.index, **cand.to_dict(), "hint": cand.hint}
            )
        return cand

    def _design_and_register(self, cand: Candidate, slot: Slot, prior: Prior) -> None:
        design = self._design_messages(slot)
        request = design
        for turn_index in range(self.max_repairs + 1):
            if self.stop.is_set():
                cand.reason = "stopped before this turn"
                return
            purpose = "design" if turn_index == 0 else "repair"
            log_id = f"c{cand.index:04d}-t{turn_index}"
            try:
                reply, seconds, from_log = self.ask(cand.index, log_id, purpose, request, prior)
            except LLMError as exc:
                if isinstance(exc, LLMUnreachableError):  # every other candidate would wait too
                    self.stopped = self.stopped or f"the model could not be reached: {exc}"
                    self.stop.set()
                if not cand.turns:
                    cand.status, cand.reason = "error", f"the model failed: {exc}"
                else:
                    cand.status = "rejected"
                    cand.reason = f"{failure(cand.report)} (the repair request failed: {exc})"
                return
            turn = DesignTurn(
                purpose, log_id, request, reply, llm_seconds=seconds, from_log=from_log
            )
            cand.turns.append(turn)
            self._validate(cand.index, turn, cand.turns[:-1])
            if turn.report is not None and turn.report.ok:
                break
            if turn_index == self.max_repairs:
                cand.status, cand.reason = "rejected", failure(turn.report)
                return
            request = repair_messages(
                design, reply, turn.report.feedback() if turn.report else "No program was found."
            )
        self._hint(cand, prior)
        self._register(cand, slot)

    def ask(
        self, index: int, log_id: str, purpose: str, messages: list[Message], prior: Prior
    ) -> tuple[str, float, bool]:
        """One reply: read back from the log when an earlier run got it, else asked and logged."""
        if log_id in prior.replies:
            return prior.replies[log_id], 0.0, True
        started = time.perf_counter()
        try:
            reply = self.llm.complete(messages, 1)[0]
        except LLMError as exc:
            self.log.write(
                {
                    "event": "llm_error",
                    "candidate": index,
                    "id": log_id,
                    "purpose": purpose,
                    "error": str(exc),
                }
            )
            raise
        seconds = time.perf_counter() - started
        record: dict[str, Any] = {
            "event": "reply",
            "candidate": index,
            "id": log_id,
            "purpose": purpose,
            "model": self.llm.name,
            "seconds": round(seconds, 3),
            "reply": reply,
        }
        # The whole request goes in once per candidate; a repair adds only its new message.
        record["messages" if purpose != "repair" else "request"] = (
            messages if purpose != "repair" else messages[-1:]
        )
        self.log.write(record)
        return reply, seconds, False

    def _validate(self, index: int, turn: DesignTurn, earlier: list[DesignTurn]) -> None:
        started = time.perf_counter()
        program = extracted(turn.reply) if earlier else None
        same = next((t for t in earlier if program is not None and t.program == program), None)
        if same is not None:
            # Validation is deterministic: an unchanged program gets the same verdict.
            report = same.report
        else:
            report = self._check(turn.reply)
        turn.report = report
        turn.program = report.program if report is not None else None
        turn.validate_seconds = time.perf_counter() - started
        if report is not None:
            self.log.write(
                {
                    "event": "validation",
                    "id": turn.log_id,
                    "candidate": index,
                    "ok": report.ok,
                    "failed": [c.name for c in report.failures],
                    "feedback": "" if report.ok else report.feedback(),
                    "seconds": report.seconds,
                }
            )

    def _check(self, reply: str) -> ValidationReport:
        """Validate here, or on the executor (a lost validation comes back as a failed report)."""
        if self.executor is None:
            return validate(reply, self.validation)
        return validate_many([reply], self.validation, executor=self.executor)[0]

    def _hint(self, cand: Candidate, prior: Prior) -> None:
        report, program = cand.report, cand.program
        if report is None or program is None:
            return
        own = report.properties.hint
        if own:
            cand.hint, cand.hint_source = own, "program"
            return
        if not self.write_hints or report.properties.kind == "two_player":
            return
        solutions = hints.instance_solutions(program, sandbox=self.validation.sandbox)
        try:
            result = hints.write_hint(
                _LoggedLLM(self, cand.index, prior),
                program,
                solutions,
                on_reply=cand.hint_replies.append,
            )
        except LLMError as exc:
            cand.reason = f"no hint: the hint request failed: {exc}"
            return
        if result.hint is None:
            cand.reason = f"no hint: {result.problem}"
        cand.hint, cand.hint_source = result.hint, "designer" if result.hint else None

    def _register(self, cand: Candidate, slot: Slot) -> None:
        report, program = cand.report, cand.program
        if report is None or program is None:
            return
        provenance = {
            "designer": self.llm.name,
            "document_id": slot.document.id,
            "corpus": self.corpus.name,
            "origin": "generate",
            "requested_skill": slot.skill,
            "kind": slot.kind,
            "difficulty": slot.difficulty,
            "log": str(self.log.path),
            "log_id": cand.turns[-1].log_id,
            "repairs": cand.repairs,
            "hint_source": cand.hint_source,
        }
        if cand.hint_source == "designer":
            provenance["hint"] = cand.hint
        with self.store_lock:
            commit(
                cand,
                report,
                provenance,
                self.registry,
                self.memory,
                self.registered,
                own=lambda env_id: self._registered_by(env_id, cand.index),
            )

    def _recover(self, cand: Candidate, prior: Prior) -> None:
        """Trust the registry over a logged "error": the slot's program may be registered.

        A run that registered the program and then failed (a full disk while recording it in
        the memory, or while logging the verdict) logged an error; the registry is the truth.
        """
        turns = {
            int(match[1]): reply
            for log_id, reply in prior.replies.items()
            if (match := re.fullmatch(r"c\d+-t(\d+)", log_id))
        }
        if not turns:
            return
        program = extracted(turns[max(turns)])
        try:
            env_id = self.registry.id_of(program) if program is not None else None
        except Exception:  # an unreadable registry: the logged verdict stands
            return
        if env_id is not None and self._registered_by(env_id, cand.index):
            cand.status, cand.env_id = "accepted", env_id
            cand.reason = "registered by the earlier run, which then failed"
            self.registered.add(env_id)

    def _registered_by(self, env_id: str, index: int) -> bool:
        """Whether ``env_id`` is this slot's own, from a run killed before it logged the verdict.

        Such an environment was registered by an earlier run of this very log but never
        counted, so it counts now.
        """
        if env_id in self.registered:
            return False
        try:
            provenance = self.registry.get(env_id).manifest.provenance.model_dump()
        except Exception:  # in another root, or unreadable: not this run's
            return False
        return provenance.get("log") == str(self.log.path) and str(
            provenance.get("log_id", "")
        ).startswith(f"c{index:04d}-")

    def _design_messages(self, slot: Slot) -> list[Message]:
        context = DesignContext()
        if self.memory is not None:
            with self.store_lock:
                context = draw_context(
                    self.memory,
                    slot.skill,
                    slot.document.text,
                    random.Random(f"spadegym.generate.examples:{slot.index}:{slot.document.id}"),
                    lambda env_id: source_of(self.registry, env_id),
                )
        return design_messages(
            slot.skill,
            slot.difficulty,
            slot.document.text,
            kind=slot.kind,
            examples=context.examples,
            negative=context.negative,
            nearby=context.nearby,
        )


class _LoggedLLM:
    """The designer model as the hint-writer sees it: each reply logged, or read back."""

    def __init__(self, run: _Run, index: int, prior: Prior):
        self.name = run.llm.name
        self._run, self._index, self._prior = run, index, prior
        self._asked = 0

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        log_id = f"c{self._index:04d}-h{self._asked}"
        self._asked += 1
        return [self._run.ask(self._index, log_id, "hint", list(messages), self._prior)[0]]


def _from_final(cand: Candidate, final: dict[str, Any]) -> Candidate:
    cand.resumed = True
    cand.status = str(final.get("status", "error"))
    cand.env_id = final.get("env_id")
    cand.reason = str(final.get("reason", ""))
    cand.novelty = final.get("novelty")
    cand.hint = final.get("hint")
    cand.hint_source = final.get("hint_source")
    cand.seconds = float(final.get("seconds", 0.0))
    return cand


# -- progress ------------------------------------------------------------------------------


class _Progress:
    """A one-line counter on stderr: rewritten in place on a terminal, a line each otherwise."""

    def __init__(self, total: int, enabled: bool):
        self.total = total
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()
        self.started = time.perf_counter()
        self.counts: dict[str, int] = {}

    def update(self, cand: Candidate) -> None:
        self.counts[cand.status] = self.counts.get(cand.status, 0) + 1
        if not self.enabled:
            return
        done = sum(self.counts.values())
        parts = "  ".join(
            f"{s} {self.counts.get(s, 0)}" for s in ("accepted", "rejected", "duplicate", "error")
        )
        line = f"generate {done}/{self.total}  {parts}  {time.perf_counter() - self.started:.0f}s"
        if self.tty:
            sys.stderr.write("\r" + line + ("\n" if done == self.total else ""))
        else:
            what = cand.env_id if cand.status == "accepted" else cand.status
            sys.stderr.write(f"{line}  (#{cand.index} {what})\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.tty and sum(self.counts.values()) < self.total:
            sys.stderr.write("\n")
            sys.stderr.flush()


# -- the entry point -----------------------------------------------------------------------


def generate(
    n: int,
    llm: ChatLLM,
    corpus: Corpus | str | Path | None = None,
    *,
    skills: Sequence[str] | None = None,
    kinds: Sequence[str] = ("puzzle",),
    difficulty: int | Sequence[int] = 3,
    registry: RegistryLike | str | Path | None = None,
    memory: MemoryLike | None = None,
    max_repairs: int = 2,
    concurrency: int = 8,
    seed: int = 0,
    progress: bool = True,
    log: str | Path | None = None,
    validation: ValidationConfig | None = None,
    write_hints: bool = True,
    executor: Executor | str | None = None,
) -> GenerationReport:
    """Write ``n`` candidate environments with ``llm`` and register the good, new ones.

    Args:
        n: candidate slots (each gets one design turn and up to ``max_repairs`` repairs).
        llm: the designer backend (``spadegym.llm``).
        corpus: grounding documents: a ``Corpus``, anything ``load_corpus`` reads, or ``None``
            for the shipped default corpus.
        skills: the skills to rotate through; the six SPADE skills by default.
        kinds: the kinds to draw from: ``"puzzle"``, ``"tool"``, ``"two_player"``.
        difficulty: the designer difficulty (1..5), or several to draw from.
        registry: a ``Registry``, or a folder for one; ``None`` is the user's registry
            (``$SPADEGYM_HOME/registry``).
        memory: an ``EnvironmentMemory`` for prompt examples and novelty checks, or ``None``
            (then only the registry's own duplicate check applies).
        max_repairs: repair turns after a failed validation.
        concurrency: candidates in flight at once.
        seed: the run's seed; with the same settings, the same slots.
        progress: show a counter on stderr; nothing is printed when False.
        log: the JSONL run log; by default ``generate-logs/<settings hash>.jsonl`` beside the
            registry, so that the same command resumes.
        validation: how hard to validate; ``ValidationConfig()`` by default.
        write_hints: ask the model for a hint when a program has no ``hint()``.
        executor: where validations run: ``None`` (each candidate's own thread), ``"local"``,
            ``"ray"``, ``"ray:<address>"`` or an ``Executor``
            (``spadegym.validation.executors``); the model calls stay in this process. An
            executor made here is closed at the end.

    Returns:
        A ``GenerationReport`` with every candidate, the counts and the timings. Ctrl-C
        stops the run and returns what finished (``interrupted=True``); the log keeps the rest.
        A model that cannot be reached at all stops the run at its first refused request
        (``stopped`` says so; the candidates not started are ``interrupted``).

    Raises:
        ConfigError: a setting is out of range, ``log`` belongs to a run with other settings,
            or ``executor`` is unknown (or needs Ray, which is not installed).
    """
    skills = tuple(skills or SKILLS)
    kinds = tuple(kinds)
    difficulties = (difficulty,) if isinstance(difficulty, int) else tuple(difficulty)
    _check_settings(n, skills, kinds, difficulties, max_repairs, concurrency)
    corpus = load_corpus(corpus)
    registry = _open_registry(registry)
    settings = {
        "seed": seed,
        "skills": list(skills),
        "kinds": list(kinds),
        "difficulties": list(difficulties),
        "corpus": corpus.name,
        "corpus_size": len(corpus),
        "model": llm.name,
        "max_repairs": max_repairs,
    }
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    log_path = Path(log) if log is not None else _default_log(registry, key)
    chosen = _open_executor(executor)  # before the log, so a bad spelling leaves no trace
    try:
        run_log = RunLog(log_path, key, {**settings, "n": n}, on_failure=lambda exc: None)
    except BaseException:
        _close_executor(chosen, executor)
        raise
    run = _Run(
        llm,
        corpus,
        registry,
        memory,
        validation or ValidationConfig(),
        max_repairs,
        write_hints,
        run_log,
        chosen,
    )
    run_log.on_failure = run.log_failed
    if run_log.failed is not None:  # its first line could not be written
        run.log_failed(run_log.failed)
    _resume(run, run_log)
    slots = [plan_slot(i, seed, corpus, skills, kinds, difficulties) for i in range(n)]
    bar = _Progress(n, progress)
    started = time.perf_counter()
    results: dict[int, Candidate] = {}
    interrupted = False
    try:
        for cand in _run_all(run, slots, concurrency):
            results[cand.index] = cand
            bar.update(cand)
    except KeyboardInterrupt:
        interrupted = True
        run.stop.set()
        run_log.write({"event": "interrupted", "time": time.time(), "finished": len(results)})
    finally:
        bar.close()
        run_log.close()
        _close_executor(chosen, executor)
    not_done = (
        "not started: the run stopped because the model could not be reached"
        if run.stopped and not interrupted
        else "the run was interrupted; run again with the same settings to resume"
    )
    candidates = [
        results.get(s.index)
        or Candidate(
            s.index, s.skill, s.kind, s.difficulty, s.document.id, corpus.name, reason=not_done
        )
        for s in slots
    ]
    return GenerationReport(
        candidates,
        llm.name,
        str(log_path),
        time.perf_counter() - started,
        interrupted,
        stopped=run.stopped,
    )


def _resume(run: _Run, run_log: RunLog) -> None:
    """Carry an earlier run of this log over: its accepted ids, and its replay position."""
    for prior in run_log.prior.values():
        final = prior.final or {}
        if final.get("status") == "accepted" and final.get("env_id"):
            run.registered.add(str(final["env_id"]))
    if isinstance(run.llm, ReplayChat):
        # The log holds every reply the earlier run was served: a fresh replay would serve
        # them again to other slots, as copies of what those slots already made.
        run.llm.skip_served(r for prior in run_log.prior.values() for r in prior.replies.values())


def _run_all(run: _Run, slots: list[Slot], concurrency: int) -> Iterator[Candidate]:
    """Yield candidates as they finish, from ``concurrency`` daemon threads.

    Daemon threads, not an executor: on Ctrl-C the main thread must be free to return while a
    model call is still in flight (its reply, if it comes, is logged by then or never asked).
    """
    todo: queue.Queue[Slot] = queue.Queue()
    for slot in slots:
        todo.put(slot)
    done: queue.Queue[Candidate | BaseException] = queue.Queue()

    def work() -> None:
        while not run.stop.is_set():
            try:
                slot = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put(run.candidate(slot))
            except BaseException as exc:  # reported to the main thread, which re-raises
                run.stop.set()
                done.put(exc)
                return

    threads = [
        threading.Thread(target=work, name=f"spadegym-generate-{k}", daemon=True)
        for k in range(min(concurrency, len(slots)))
    ]
    for thread in threads:
        thread.start()
    for _ in slots:
        # A timeout keeps the main thread responsive to Ctrl-C while it waits.
        while True:
            try:
                item = done.get(timeout=0.2)
                break
            except queue.Empty:
                if run.stop.is_set() and not any(t.is_alive() for t in threads):
                    if done.empty():  # stopped early: the other slots will never finish
                        return
                continue
        if isinstance(item, BaseException):
            run.stop.set()
            raise item
        yield item


def _check_settings(
    n: int,
    skills: tuple[str, ...],
    kinds: tuple[str, ...],
    difficulties: tuple[int, ...],
    max_repairs: int,
    concurrency: int,
) -> None:
    if n < 0:
        raise ConfigError(f"n={n}: ask for zero or more candidates.")
    if not skills or not all(isinstance(s, str) and s.strip() for s in skills):
        raise ConfigError(f"skills={skills!r}: give at least one non-empty skill name.")
    bad = [k for k in kinds if k not in KINDS]
    if not kinds or bad:
        raise ConfigError(f"kinds={kinds!r}: each kind is one of {', '.join(KINDS)}.")
    if not difficulties:
        raise ConfigError("difficulty=(): give at least one difficulty.")
    for difficulty in difficulties:
        contract.check_difficulty(difficulty)
    if max_repairs < 0 or concurrency < 1:
        raise ConfigError(
            f"max_repairs={max_repairs}, concurrency={concurrency}: need "
            "max_repairs >= 0 and concurrency >= 1."
        )


def _open_executor(executor: Executor | str | None) -> Executor | None:
    if executor is None:
        return None
    try:
        return get_executor(executor)
    except ConfigError:
        raise
    except SpadegymError as exc:  # an unknown spelling is a setting's error here
        raise ConfigError(str(exc)) from exc


def _close_executor(chosen: Executor | None, given: Executor | str | None) -> None:
    """Close an executor made from a spelling; one the caller passed stays theirs."""
    if chosen is not None and chosen is not given:
        chosen.close()


def _open_registry(registry: RegistryLike | str | Path | None) -> RegistryLike:
    if registry is not None and not isinstance(registry, (str, Path)):
        return registry
    from spadegym.registry.store import Registry

    return Registry(Path(registry)) if registry is not None else Registry.user()


def _default_log(registry: RegistryLike, key: str) -> Path:
    root = getattr(registry, "root", None)
    base = Path(root).parent if root is not None else Path.cwd()
    return base / "generate-logs" / f"{key}.jsonl"
