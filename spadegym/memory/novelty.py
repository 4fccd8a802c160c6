"""When two environments are the same game: the decision rule and its tuned thresholds.

Signals, from strongest to weakest evidence (``judge`` tries them in this order):

1. the normalised-AST fingerprint (``fingerprint.py``): equal means a renamed, reworded,
   reordered or reformatted copy;
2. cross-play (``crossplay.py``, only when the caller gives a sandbox worker holding the
   candidate): the stored environment's recorded solutions win the candidate on the same
   seeds, which recognises a rewrite whatever its code and wording. On the development set no
   stored solution of a different game won a single probe;
3. code similarity, the Jaccard overlap of token shingles of the normalised code: a near copy
   keeps most of its shingles even after a few lines change;
4. semantic similarity, the cosine of the embeddings of title, description and first
   observation, alone when very high, or with some code overlap.

Static signals stay for what cross-play cannot align: a rewrite that also draws its random
numbers in another order builds other instances from the same seeds. Semantic similarity alone
is weak evidence: two different games on one topic are described with the same words, which is
why its thresholds are high. They were tuned (``tests/memory/devset.tune``) on the tuning half
of ``tests/data/dedup`` with all-MiniLM-L6-v2, with the behavioural rules in place and every
different-game pair at least 0.05 from firing a rule; on the held-out half the rule reaches
precision 1.0 and recall 0.90 with a sandbox, recall 0.51 without
(``benchmarks/bench_memory.py`` prints both halves). The numbers of the first observations
are measured too (``Signals.numbers``) and shown by ``similar``, but decide nothing: on the
development set, different games on one topic align as well as rewrites that reorder draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spadegym.errors import ConfigError
from spadegym.memory.crossplay import CrossPlay
from spadegym.memory.signature import PROBES


@dataclass(frozen=True)
class Signals:
    """Everything the memory measured between a candidate and one stored environment.

    Attributes:
        env_id: the stored environment.
        semantic: cosine of the embeddings of title, description and first observation.
        code: code shingle overlap in ``[0, 1]``.
        exact: equal normalised-AST fingerprints.
        cross: the stored environment's recorded play replayed in the candidate (``None``
            without a sandbox handle, or when either has no signature).
        numbers: ``(aligned, shifted)`` overlap of the numbers of the first observations,
            probe for probe and against the next probe (see
            ``signature.observation_alignment``); ``None`` without signatures.
    """

    env_id: str
    semantic: float
    code: float
    exact: bool = False
    cross: CrossPlay | None = None
    numbers: tuple[float, float] | None = None


@dataclass(frozen=True)
class Verdict:
    """Why a candidate is the same game as a stored environment.

    Attributes:
        signal: the signal that decided: ``"fingerprint"``, ``"cross-play"``, ``"code"``,
            ``"description"`` or ``"description and code"``.
        reason: one sentence naming the evidence, fit to show a designer.
    """

    signal: str
    reason: str


@dataclass(frozen=True)
class Novelty:
    """The answer of ``EnvironmentMemory.check_novelty``.

    Attributes:
        novel: ``True`` when no stored environment is the same game.
        nearest_id: the stored environment that decided (or the closest one), if any.
        similarity: semantic cosine to ``nearest_id`` (1.0 for an exact copy).
        reason: one sentence saying why, naming the signal that decided, fit to show a
            designer.
        code_similarity: code shingle overlap with ``nearest_id`` in ``[0, 1]``.
        signal: the signal that decided (``Verdict.signal``), or ``None`` for a new game.
        signals: what was measured against each neighbour compared, nearest first.
        embedding: the candidate's embedding, for the ``add`` that follows (``None`` for an
            exact copy, which is found without one).
    """

    novel: bool
    nearest_id: str | None
    similarity: float
    reason: str
    code_similarity: float = 0.0
    signal: str | None = None
    signals: tuple[Signals, ...] = ()
    embedding: Embedded | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Embedded:
    """A candidate's embedding, made by ``check_novelty`` and reused by the ``add`` after it.

    Pass ``Novelty.embedding`` to ``EnvironmentMemory.add`` and the candidate is embedded
    once per admission. ``add`` uses it only when it is of the very text it would embed, by
    its own embedder; anything else is embedded anew, never stored as it is.

    Attributes:
        text: the embedded text (``embedding_text``).
        embedder: the name of the embedder that made it.
        vector: the unit vector.
    """

    text: str
    embedder: str
    vector: tuple[float, ...]


@dataclass(frozen=True)
class DedupConfig:
    """Thresholds of the duplicate rule.

    A candidate is the same game as a stored environment when any of these holds, tried in
    this order: equal fingerprints; cross-play (the stored solutions win the candidate on
    every probe, see ``CrossPlay.same_game``); ``code >= code_copy``;
    ``semantic >= semantic_copy``; ``semantic >= semantic_near and code >= code_near``.

    Attributes:
        code_copy: code similarity that alone marks a near copy.
        semantic_copy: semantic cosine that alone marks the same game.
        semantic_near: semantic cosine that marks the same game with some code overlap.
        code_near: the code overlap ``semantic_near`` needs.
        candidates: stored environments compared with a candidate: this many nearest by
            meaning, and as many again nearest by code.
        behaviour: record a behavioural signature when an environment is added (in a sandbox
            worker the memory starts when the caller passes none), so later candidates can be
            cross-played against it.
    """

    # Tuned by tests/memory/devset.tune on the tuning half of tests/data/dedup (with the
    # behavioural rules in place), all-MiniLM-L6-v2.
    code_copy: float = 0.88
    semantic_copy: float = 0.92
    semantic_near: float = 0.84
    code_near: float = 0.46
    candidates: int = 32
    behaviour: bool = True

    def __post_init__(self) -> None:
        for name in ("code_copy", "semantic_copy", "semantic_near", "code_near"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"DedupConfig.{name}={value} must lie in [0, 1]")
        if self.semantic_near > self.semantic_copy:
            raise ConfigError(
                f"DedupConfig.semantic_near={self.semantic_near} exceeds semantic_copy="
                f"{self.semantic_copy}; the combined rule must need less similarity than the "
                "semantic one alone, so lower semantic_near"
            )
        if self.candidates < 1:
            raise ConfigError(f"DedupConfig.candidates={self.candidates} must be at least 1")


def judge(signals: Signals, config: DedupConfig) -> Verdict | None:
    """Decide whether the candidate is the stored game; ``None`` when it is a different one."""
    env, code, semantic = signals.env_id, signals.code, signals.semantic
    if signals.exact:
        return Verdict("fingerprint", f"exact copy of {env} (same normalised code)")
    cross = signals.cross
    if cross is not None and cross.same_game:
        return Verdict(
            "cross-play",
            f"same game as {env}: its recorded play, replayed here, wins {cross.wins} of "
            f"{len(PROBES)} probed seeds ({cross})",
        )
    if code >= config.code_copy:
        return Verdict("code", f"near copy of the code of {env} (overlap {code:.2f})")
    if semantic >= config.semantic_copy:
        return Verdict(
            "description", f"same game as {env} by its description (cosine {semantic:.2f})"
        )
    if semantic >= config.semantic_near and code >= config.code_near:
        return Verdict(
            "description and code",
            f"similar description (cosine {semantic:.2f}) and code (overlap {code:.2f}) to {env}",
        )
    return None


def embedding_text(title: str, description: str, first_observation: str | None) -> str:
    """The text whose embedding stands for an environment: what a player reads first."""
    parts = [title.strip(), description.strip(), (first_observation or "").strip()]
    return "\n".join(part for part in parts if part)
