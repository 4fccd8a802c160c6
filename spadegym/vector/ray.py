"""Batched stepping on a Ray cluster: ``RaySandboxPool`` and ``RayEnvBatch``.

``RaySandboxPool`` implements the sandbox's ``Pool`` protocol (``describe``, ``open``,
``reset_batch``, ``step_batch``, ``release``, handles with ``reset``/``step``/``hint``/
``solution``) over Ray actors. Each actor is one process that owns its own ``SandboxPool``
(one program per worker process, quarantine of stuck programs), so the sandbox's isolation
holds on every node exactly as it does locally. ``RayEnvBatch`` is ``EnvBatch`` over such a
pool: the batch's logic (seeds, turn counts, autoreset) stays on the driver, so its results
equal the local batch's for the same seeds and actions; ``step`` sends each actor its share of
the actions in one call and gathers the answers concurrently. The trainer plays its episodes
through the same pool (``spadegym_train``'s ``executor: ray``).

Where programs come from: the driver always has each program's text (``EnvBatch`` reads
registered ids from the registry). An actor first looks the id up in the registry roots of its
own node and uses that program when its sha256 matches; otherwise it fetches the text the
driver put in Ray's object store (once per program and node). Nodes without the registry
root therefore work, and nodes with it never move the text.

Failure: when an actor dies, every instance it held is lost. A ``step`` answers each lost
instance with a ``ProgramError`` of kind ``"lost"`` whose message names the environment id
(``EnvBatch`` turns it into ``terminated=True``, reward 0 and
``info["error"] = {"kind": "lost", "message": "spade/X-v0 was lost: ..."}``), a fresh actor
takes the dead one's place, and ``reset`` re-creates the instance on it (with autoreset, in the
same ``step``). The driver never sees an exception from a dead actor.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from spadegym.errors import ProgramError, SandboxError, SpadegymError
from spadegym.sandbox import ProgramInfo, SandboxConfig, SandboxPool, StepResult
from spadegym.sandbox.handle import as_value, per_worker
from spadegym.validation.executors import init_ray
from spadegym.vector.batch import EnvBatch

if TYPE_CHECKING:
    from spadegym.contract import ProgramErrorKind

__all__ = ["RayEnvBatch", "RaySandboxPool", "RemoteEnvHandle"]


@dataclass(frozen=True)
class _Failure:
    """A ``ProgramError`` on the wire (an exception's pickle would drop its ``kind``)."""

    message: str
    kind: ProgramErrorKind

    def error(self) -> ProgramError:
        return ProgramError(self.message, self.kind)


def _digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _node_program(label: str, digest: str) -> str | None:
    """The program registered as ``label`` on this node, if its text is the driver's."""
    if not label.startswith("spade/"):
        return None
    from spadegym.vector.batch import resolve_program

    try:
        _, source = resolve_program(label)
    except SpadegymError:  # not registered here, or its files are broken
        return None
    return source if _digest(source) == digest else None


class _ShardActor:
    """A Ray actor: one process owning a ``SandboxPool`` and the instances opened on it."""

    def __init__(self, workers: int, config: SandboxConfig):
        self.pool = SandboxPool(workers, config)
        self.handles: dict[int, Any] = {}
        self.sources: dict[str, str] = {}
        self.counts = {"from_node": 0, "shipped": 0}
        self.next_key = 0

    def _source(self, label: str, digest: str, shipped: list[Any]) -> str:
        if digest not in self.sources:
            local = _node_program(label, digest)
            if local is not None:
                self.counts["from_node"] += 1
            else:
                import ray

                # Nested in a list, the reference reached us unresolved: fetch it only now.
                local = ray.get(shipped[0])
                self.counts["shipped"] += 1
            self.sources[digest] = local
        return self.sources[digest]

    def open(
        self, label: str, digest: str, shipped: list[Any]
    ) -> tuple[int, ProgramInfo] | _Failure:
        try:
            handle = self.pool.open(self._source(label, digest, shipped), label)
        except ProgramError as exc:
            return _Failure(str(exc), exc.kind)
        except SandboxError as exc:
            return _Failure(str(exc), "sandbox")
        key = self.next_key
        self.next_key += 1
        self.handles[key] = handle
        return key, handle.info

    def load(self, label: str, digest: str, shipped: list[Any]) -> ProgramInfo | _Failure:
        try:
            return self.pool.describe(self._source(label, digest, shipped), label)
        except ProgramError as exc:
            return _Failure(str(exc), exc.kind)
        except SandboxError as exc:
            return _Failure(str(exc), "sandbox")

    def call(self, key: int, method: str, *args: Any) -> Any:
        """``reset``, ``hint`` or ``solution`` of one instance; failures as ``_Failure``."""
        try:
            return getattr(self.handles[key], method)(*args)
        except ProgramError as exc:
            return _Failure(str(exc), exc.kind)
        except SandboxError as exc:
            return _Failure(str(exc), "sandbox")

    def step(self, pairs: list[tuple[int, str]]) -> list[StepResult | _Failure]:
        answers = self.pool.step_batch([(self.handles[key], action) for key, action in pairs])
        return [_Failure(str(a), a.kind) if isinstance(a, ProgramError) else a for a in answers]

    def release(self, key: int) -> None:
        handle = self.handles.pop(key, None)
        if handle is not None:
            self.pool.release(handle)

    def stats(self) -> dict[str, int]:
        return {**self.counts, "instances": len(self.handles)}

    def pid(self) -> int:
        import os

        return os.getpid()


def _lost(label: str, why: str) -> ProgramError:
    return ProgramError(f"{label} was lost: {why}; reset() re-creates it on a fresh actor.", "lost")


class _Shard:
    """The driver's side of one actor; a fresh actor takes its place when it dies.

    Handles hold it as their ``worker``: ``generation`` counts replacements, and an instance
    made under an older generation is lost.
    """

    def __init__(self, pool: RaySandboxPool):
        self.pool = pool
        self.config = pool.config
        self.generation = 0
        self.actor = pool._start_actor()
        self._lock = threading.Lock()

    def snapshot(self) -> tuple[Any, int]:
        """The current actor and its generation, read together."""
        with self._lock:
            return self.actor, self.generation

    def request(self, label: str, method: str, *args: Any, actor: Any = None) -> Any:
        """Call ``method`` on the actor and wait for it.

        Raises:
            ProgramError: the program failed (its own kind), or the actor died or hung
                (kind ``"lost"``, naming ``label``); a dead actor is replaced first.
        """
        actor = actor if actor is not None else self.snapshot()[0]
        answer, errors = self.pool._gather(
            self, actor, getattr(actor, method).remote(*args), [label]
        )
        if errors:
            raise errors[0]
        if isinstance(answer, _Failure):
            raise answer.error()
        return answer

    def replace(self, dead: Any) -> None:
        """Start a fresh actor in place of ``dead``, unless another thread already did."""
        with self._lock:
            if self.actor is not dead:
                return
            try:
                self.pool.ray.kill(dead)
            except Exception:  # already gone
                pass
            self.actor = self.pool._start_actor()
            self.generation += 1

    def load_cached(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """Load a program on the actor and describe its class (as a sandbox worker does)."""
        digest = _digest(source)
        shipped = [self.pool._ship(source, digest)]
        return cast(ProgramInfo, self.request(filename, "load", filename, digest, shipped))

    def close(self) -> None:
        """Stop the actor (and with it, its sandbox workers)."""
        try:
            self.pool.ray.kill(self.actor)
        except Exception:  # already gone
            pass


class RemoteEnvHandle:
    """One environment instance held by a Ray actor; ``EnvHandle``'s interface.

    ``reset`` re-creates the instance on the replacement actor when its own actor died; any
    other call on a lost instance raises ``ProgramError`` of kind ``"lost"``.
    """

    def __init__(self, shard: _Shard, source: str, filename: str = "<program>"):
        self.worker = shard
        self.source = source
        self.filename = filename
        self.digest = _digest(source)
        self.generation = -1
        self.instance = -1
        self.info: ProgramInfo = self._create()

    def _create(self) -> ProgramInfo:
        actor, generation = self.worker.snapshot()
        shipped = [self.worker.pool._ship(self.source, self.digest)]
        key, info = self.worker.request(
            self.filename, "open", self.filename, self.digest, shipped, actor=actor
        )
        self.instance, self.generation = key, generation
        return cast(ProgramInfo, info)

    @property
    def lost(self) -> bool:
        """Whether the actor holding this instance died since it was created."""
        return self.generation != self.worker.generation

    def _call(self, method: str, *args: Any) -> Any:
        if self.lost:
            raise _lost(self.filename, "its Ray actor died")
        return self.worker.request(self.filename, "call", self.instance, method, *args)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the instance (re-creating it first if its actor died)."""
        if self.lost:
            self.info = self._create()
        return cast(tuple[str, dict[str, Any]], self._call("reset", seed, options))

    def step(self, action: str) -> StepResult:
        """Step the instance with one action."""
        result = self.worker.pool.step_batch([(self, action)])[0]
        if isinstance(result, ProgramError):
            raise result
        return result

    def solution(self) -> list[str]:
        """The program's ``solution()`` for the current instance."""
        return cast(list[str], self._call("solution"))

    def hint(self) -> str:
        """The program's ``hint()`` for the current instance."""
        return cast(str, self._call("hint"))

    def close(self) -> None:
        """Release the instance on its actor."""
        if not self.lost:
            try:
                self.worker.request(self.filename, "release", self.instance)
            except ProgramError:  # the actor died meanwhile; nothing is left to release
                pass
        self.generation = -1


class RaySandboxPool:
    """The ``Pool`` protocol over Ray actors, each owning a local ``SandboxPool``.

    Args:
        num_actors: actors to start (default: the cluster's CPUs, at most 8). Instances go to
            the actor holding the fewest.
        workers_per_actor: sandbox worker processes in each actor's pool; an actor steps its
            share of a batch over them in parallel.
        config: the sandbox settings of every worker.
        address: the cluster (``None`` follows Ray's usual settings: ``RAY_ADDRESS``, or a new
            local cluster).
        actor_cpus: CPUs each actor reserves in Ray's accounting (the sandbox workers are its
            child processes). 0 never leaves an actor waiting for room.
        timeout: seconds a call to an actor may take before the actor is treated as dead
            (killed and replaced); each sandbox call has its own, shorter deadline inside.
        init_kwargs: passed to ``ray.init`` when this pool starts Ray.
    """

    def __init__(
        self,
        num_actors: int | None = None,
        workers_per_actor: int = 1,
        config: SandboxConfig | None = None,
        *,
        address: str | None = None,
        actor_cpus: float = 0.0,
        timeout: float = 300.0,
        init_kwargs: dict[str, Any] | None = None,
    ):
        if workers_per_actor < 1 or (num_actors is not None and num_actors < 1):
            raise SpadegymError(
                f"num_actors={num_actors}, workers_per_actor="
                f"{workers_per_actor}: each must be at least 1."
            )
        self.ray = init_ray(address, init_kwargs)
        self.config = config or SandboxConfig()
        self.workers_per_actor = workers_per_actor
        self.actor_cpus = actor_cpus
        self.timeout = timeout
        cpus = int(self.ray.cluster_resources().get("CPU", 1))
        self._actor_class = self.ray.remote(_ShardActor)
        self._shipped: dict[str, Any] = {}
        self._ship_lock = threading.Lock()
        exceptions = self.ray.exceptions
        self._dead = (
            exceptions.RayActorError,
            exceptions.WorkerCrashedError,
            exceptions.GetTimeoutError,
        )
        self.workers = [_Shard(self) for _ in range(num_actors or min(8, cpus))]
        self._load = [0] * len(self.workers)

    def _start_actor(self) -> Any:
        # SPREAD places the actors on different nodes where the cluster has several.
        return self._actor_class.options(
            num_cpus=self.actor_cpus, scheduling_strategy="SPREAD"
        ).remote(self.workers_per_actor, self.config)

    def _ship(self, source: str, digest: str) -> Any:
        """The program's text in the object store, put there once per pool."""
        with self._ship_lock:
            if digest not in self._shipped:
                self._shipped[digest] = self.ray.put(source)
            return self._shipped[digest]

    def _gather(
        self, shard: _Shard, actor: Any, ref: Any, labels: list[str]
    ) -> tuple[Any, list[ProgramError] | None]:
        """``(answer, None)``, or ``(None, one error per label)`` when the actor failed."""
        try:
            return self.ray.get(ref, timeout=self.timeout), None
        except self._dead as exc:
            shard.replace(actor)
            why = (
                f"its Ray actor did not answer within {self.timeout:g} s"
                if isinstance(exc, self.ray.exceptions.GetTimeoutError)
                else f"its Ray actor died ({type(exc).__name__})"
            )
            return None, [_lost(label, why) for label in labels]
        except self.ray.exceptions.RayTaskError as exc:  # a bug on the actor's side
            return None, [
                ProgramError(f"{label}: the Ray actor failed: {exc.cause!r}", "sandbox")
                for label in labels
            ]

    def start(self) -> None:
        """Nothing to do: the actors started with the pool (their workers start on first use)."""

    def describe(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """Load ``source`` on the actor holding the fewest instances; its class facts.

        Raises:
            ProgramError: the program does not load, or the actor died (kind ``"lost"``).
        """
        index = min(range(len(self.workers)), key=self._load.__getitem__)
        return self.workers[index].load_cached(source, filename)

    def open(self, source: str, filename: str = "<program>") -> RemoteEnvHandle:
        """Create an instance of ``source`` on the actor holding the fewest."""
        index = min(range(len(self.workers)), key=self._load.__getitem__)
        handle = RemoteEnvHandle(self.workers[index], source, filename)
        self._load[index] += 1
        return handle

    def open_many(self, items: Sequence[tuple[str, str]]) -> list[Any]:
        """``open`` for each ``(source, filename)`` in turn; failures come back as values."""
        return [
            as_value(functools.partial(self.open, source, filename)) for source, filename in items
        ]

    def reset_batch(
        self, batch: Sequence[tuple[Any, int | None, dict[str, Any] | None]]
    ) -> list[tuple[str, dict[str, Any]] | ProgramError]:
        """Reset each ``(handle, seed, options)``, the actors in parallel; failures as values."""
        results: list[tuple[str, dict[str, Any]] | ProgramError | None] = [None] * len(batch)

        def reset(positions: list[int]) -> None:
            for position in positions:
                handle, seed, options = batch[position]
                results[position] = as_value(functools.partial(handle.reset, seed, options))

        per_worker([handle.worker for handle, _, _ in batch], reset)
        return results  # type: ignore[return-value]

    def release(self, handle: RemoteEnvHandle) -> None:
        """Close an instance opened by this pool."""
        self.release_many([handle])

    def release_many(self, handles: Sequence[Any]) -> None:
        """Close instances opened by this pool."""
        for handle in handles:
            handle.close()
            for index, shard in enumerate(self.workers):
                if shard is handle.worker:
                    self._load[index] = max(0, self._load[index] - 1)

    def step_batch(self, batch: Sequence[tuple[Any, str]]) -> list[StepResult | ProgramError]:
        """Step many instances at once: one call per actor, all sent before any is awaited."""
        results: list[StepResult | ProgramError | None] = [None] * len(batch)
        groups: dict[int, list[int]] = {}
        for position, (handle, _) in enumerate(batch):
            if handle.lost:
                results[position] = _lost(handle.filename, "its Ray actor died")
            else:
                groups.setdefault(id(handle.worker), []).append(position)
        sent = []
        for positions in groups.values():
            shard = batch[positions[0]][0].worker
            actor, generation = shard.snapshot()
            if generation != batch[positions[0]][0].generation:
                # Replaced by another thread since the check above.
                for p in positions:
                    results[p] = _lost(batch[p][0].filename, "its Ray actor died")
                continue
            pairs = [(batch[p][0].instance, batch[p][1]) for p in positions]
            sent.append((shard, actor, positions, actor.step.remote(pairs)))
        for shard, actor, positions, ref in sent:
            answers, errors = self._gather(
                shard, actor, ref, [batch[p][0].filename for p in positions]
            )
            for p, answer in zip(positions, errors or answers, strict=True):
                results[p] = answer.error() if isinstance(answer, _Failure) else answer
        return results  # type: ignore[return-value]

    def stats(self) -> list[dict[str, int]]:
        """Per actor: programs read from its node's registry or fetched, and instances held."""
        return [
            self.ray.get(shard.actor.stats.remote(), timeout=self.timeout) for shard in self.workers
        ]

    def close(self) -> None:
        """Stop every actor (Ray itself stays up for the caller)."""
        for shard in self.workers:
            shard.close()
        self.workers = []

    def __enter__(self) -> RaySandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RayEnvBatch(EnvBatch):
    """``EnvBatch`` over a ``RaySandboxPool``: the instances spread over Ray actors.

    Results equal ``EnvBatch``'s for the same environments, seeds and actions. An instance
    whose actor died answers its step with ``terminated=True``, reward 0 and
    ``info["error"] = {"kind": "lost", "message": "<env id> was lost: ..."}``, and is
    re-created on a fresh actor by the next reset (with autoreset, in that same step).

    Args:
        envs: registered ids or program texts, one per instance (see ``EnvBatch``).
        num_actors: actors of the pool made here (default: the cluster's CPUs, at most 8).
        workers_per_actor: sandbox workers in each actor.
        seed: as ``EnvBatch``'s.
        sandbox: the ``SandboxConfig`` of the workers.
        autoreset: as ``EnvBatch``'s.
        pool: share an existing ``RaySandboxPool`` (it stays open after ``close``).
        address: the cluster, when the pool is made here.
        init_kwargs: passed to ``ray.init`` when this batch starts Ray.
    """

    def __init__(
        self,
        envs: Sequence[str],
        *,
        num_actors: int | None = None,
        workers_per_actor: int = 1,
        seed: int | None = None,
        sandbox: SandboxConfig | None = None,
        autoreset: bool = True,
        pool: RaySandboxPool | None = None,
        address: str | None = None,
        init_kwargs: dict[str, Any] | None = None,
    ):
        own = pool is None
        if pool is None:
            pool = RaySandboxPool(
                num_actors, workers_per_actor, sandbox, address=address, init_kwargs=init_kwargs
            )
        try:
            super().__init__(envs, pool=pool, seed=seed, autoreset=autoreset)
        except BaseException:
            if own:
                pool.close()
            raise
        self._own_pool = own
