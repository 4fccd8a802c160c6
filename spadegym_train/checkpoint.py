"""Checkpoints: everything a run needs to continue exactly where it stopped.

``workspace/checkpoints/it-<N>/`` holds the LoRA weights, the optimizer, the RNG states of
torch, numpy and random, the loop state (the pool, the designer's pending candidates, the RAE
baselines, the document sampler), and copies of the run's memory and registry (they are
written during an iteration, so the copies taken at the checkpoint are what a resume restores).
A checkpoint is written to a temporary folder and renamed, and ``latest`` names the newest
complete one, so a run killed while saving resumes from the previous checkpoint.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from spadegym.designer.candidates import Candidate, DesignTurn, Tokens
from spadegym.errors import ConfigError
from spadegym_train.design import Plays
from spadegym_train.library import PoolEnv

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym_train.config import TrainConfig

KEEP = 2
"""Checkpoints kept on disk (older ones are removed)."""


@dataclass
class RunState:
    """The loop's state between iterations.

    Attributes:
        iteration: the next iteration to run.
        regeneration: regenerations done so far.
        pool: the environments being played.
        candidates: the designer candidates of the current window.
        plays: each candidate's plays over the window, in the same order.
        next_candidates: the next window's candidates, already written
            (``design.async_regeneration``); validated again on resume if their check was in flight.
        baselines: RAE baselines (``RoleBaselines.state_dict``).
        sampler: state of the ``random.Random`` that samples documents, difficulties, pools.
        curriculum: the curriculum's state (``Curriculum.state_dict``), ``mode=curriculum``.
    """

    iteration: int = 0
    regeneration: int = 0
    pool: list[PoolEnv] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    plays: list[Plays] = field(default_factory=list)
    next_candidates: list[Candidate] = field(default_factory=list)
    baselines: dict[str, Any] = field(default_factory=dict)
    sampler: Any = None
    curriculum: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The state as JSON."""
        data = {
            "iteration": self.iteration,
            "regeneration": self.regeneration,
            "pool": [asdict(p) for p in self.pool],
            "candidates": [
                {**_candidate_state(c), **asdict(p)}
                for c, p in zip(self.candidates, self.plays, strict=True)
            ],
            "next_candidates": [_candidate_state(c) for c in self.next_candidates],
            "baselines": self.baselines,
            "sampler": _jsonable(self.sampler),
            "curriculum": self.curriculum,
        }
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> RunState:
        """Rebuild ``to_json``."""
        data = json.loads(text)
        version, internal, gauss = data["sampler"]
        return cls(
            iteration=data["iteration"],
            regeneration=data["regeneration"],
            pool=[PoolEnv(**p) for p in data["pool"]],
            candidates=[_candidate_from_state(c) for c in data["candidates"]],
            plays=[_plays_from_state(c) for c in data["candidates"]],
            next_candidates=[_candidate_from_state(c) for c in data.get("next_candidates", [])],
            baselines=data["baselines"],
            sampler=(version, tuple(internal), gauss),
            curriculum=data.get("curriculum", {}),
        )


_PLAYS = ("plain", "hint", "matched", "failed")
"""A checkpointed candidate's keys that are its ``Plays``."""


def _candidate_state(cand: Candidate) -> dict[str, Any]:
    """A candidate as a checkpoint keeps it: its verdict and tokens, not its reports."""
    return {
        "index": cand.index,
        "skill": cand.skill,
        "kind": cand.kind,
        "difficulty": cand.difficulty,
        "document_id": cand.document_id,
        "corpus": cand.corpus,
        "reply": cand.reply,
        "status": cand.status,
        "env_id": cand.env_id,
        "reason": cand.reason,
        "novelty": cand.novelty,
        "attempt": cand.attempt,
        "scripted": cand.scripted,
        "shown": cand.shown,
        "tokens": asdict(cand.tokens) if cand.tokens is not None else None,
        "floor": cand.floor,
    }


def _candidate_from_state(data: dict[str, Any]) -> Candidate:
    """Rebuild ``_candidate_state``.

    Also reads a candidate of a checkpoint written before the trainer used
    ``spadegym.designer.Candidate`` (``text``, ``slot``, ``valid``, ``env_key``...).
    """
    if "text" in data:  # the trainer's own candidate, before this format
        status = "accepted" if data.get("valid") else "rejected"
        data = {
            "index": data.get("slot", 0),
            "skill": data["skill"],
            "kind": "puzzle",
            "difficulty": data.get("difficulty", 3),
            "document_id": "",
            "corpus": "",
            "reply": data["text"],
            "status": status,
            "env_id": data.get("env_key"),
            "reason": data.get("feedback", ""),
            "attempt": data.get("attempt", 1),
            "scripted": data.get("scripted", False),
            "shown": data.get("shown", {}),
            "tokens": {
                "prompt_ids": data["prompt_ids"],
                "response_ids": data["response_ids"],
                "old_logprobs": data.get("old_logprobs"),
                "engine_logprobs": data.get("engine_logprobs"),
            },
            "floor": data.get("floor"),
        }
    fields = {k: v for k, v in data.items() if k not in _PLAYS and k not in ("reply", "tokens")}
    log_id = f"c{data['index']:04d}-a{data.get('attempt', 1)}"
    tokens = data.get("tokens")
    return Candidate(
        **fields,
        turns=[DesignTurn("design", log_id, [], data["reply"])],
        tokens=Tokens(**tokens) if tokens is not None else None,
    )


def _plays_from_state(data: dict[str, Any]) -> Plays:
    return Plays(**{k: data[k] for k in _PLAYS if k in data})


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    return value


def rng_states() -> dict[str, Any]:
    """The global generators' states."""
    states: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "numpy": np.random.get_state(),
        "random": random.getstate(),
    }
    if torch.cuda.is_available():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def set_rng_states(states: dict[str, Any]) -> None:
    """Restore ``rng_states``."""
    torch.set_rng_state(states["torch"])
    np.random.set_state(states["numpy"])
    random.setstate(states["random"])
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])


def _copy_folder(source: Path, target: Path) -> None:
    if source.exists():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".lock", "*.lock"))


def save_checkpoint(
    workspace: Path, state: RunState, policy: Any, optimizer: Any, memory: MemoryLike | None
) -> Path:
    """Write a checkpoint of ``state`` (whose ``iteration`` is the next one to run)."""
    root = workspace / "checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"it-{state.iteration:06d}"
    temp = root / f".tmp-it-{state.iteration:06d}"
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir()
    torch.save(policy.adapter_state(), temp / "adapters.pt")
    torch.save(optimizer.state_dict(), temp / "optimizer.pt")
    torch.save(rng_states(), temp / "rng.pt")
    (temp / "state.json").write_text(state.to_json(), encoding="utf-8")
    if memory is not None:
        memory.flush()
    _copy_folder(workspace / "memory", temp / "memory")
    _copy_folder(workspace / "registry", temp / "registry")
    shutil.rmtree(final, ignore_errors=True)
    temp.rename(final)
    (root / "latest.tmp").write_text(final.name, encoding="utf-8")
    (root / "latest.tmp").replace(root / "latest")
    for old in sorted(root.glob("it-*"))[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def latest_checkpoint(workspace: Path) -> Path | None:
    """The newest complete checkpoint, or ``None``."""
    pointer = workspace / "checkpoints" / "latest"
    if not pointer.exists():
        return None
    folder = workspace / "checkpoints" / pointer.read_text(encoding="utf-8").strip()
    return folder if folder.exists() else None


def checkpoint_iteration(checkpoint: Path) -> int:
    """The next iteration a checkpoint resumes at (read from its state, not its name)."""
    data = json.loads((checkpoint / "state.json").read_text(encoding="utf-8"))
    return int(data["iteration"])


def restore_files(checkpoint: Path, workspace: Path) -> None:
    """Put the checkpoint's memory and registry back in the workspace (before opening them)."""
    for name in ("memory", "registry"):
        shutil.rmtree(workspace / name, ignore_errors=True)
        _copy_folder(checkpoint / name, workspace / name)


def load_checkpoint(checkpoint: Path, policy: Any, optimizer: Any) -> RunState:
    """Restore weights, optimizer and RNG states; return the loop state."""
    policy.load_adapter_state(torch.load(checkpoint / "adapters.pt", weights_only=True))
    optimizer.load_state_dict(torch.load(checkpoint / "optimizer.pt", weights_only=True))
    set_rng_states(torch.load(checkpoint / "rng.pt", weights_only=False))
    return RunState.from_json((checkpoint / "state.json").read_text(encoding="utf-8"))


def prepare_workspace(config: TrainConfig) -> tuple[Path, Path | None]:
    """Open the run folder: restore the latest checkpoint's files, or clear a failed start's.

    Returns:
        The workspace and the checkpoint to resume from (``None`` for a new run).

    Raises:
        ConfigError: the workspace holds a run and ``resume`` is off.
    """
    import yaml

    from spadegym_train.config import to_dict

    workspace = Path(config.workspace)
    checkpoint = latest_checkpoint(workspace) if config.resume else None
    if checkpoint is None and (workspace / "checkpoints").exists() and not config.resume:
        raise ConfigError(
            f"workspace {workspace} holds a run; set resume=true to continue it "
            "or choose another workspace."
        )
    workspace.mkdir(parents=True, exist_ok=True)
    if checkpoint is not None:
        restore_files(checkpoint, workspace)
    else:  # leftovers of a run that stopped before its first checkpoint
        for name in ("memory", "registry", "tb"):
            shutil.rmtree(workspace / name, ignore_errors=True)
        for name in ("metrics.jsonl", "designs.jsonl", "episodes.jsonl"):
            (workspace / name).unlink(missing_ok=True)
    (workspace / "config.yaml").write_text(yaml.safe_dump(to_dict(config)), encoding="utf-8")
    return workspace, checkpoint


def completed_iterations(config: TrainConfig) -> int:
    """Iterations the workspace's latest checkpoint has done (0 for a new run)."""
    if not config.resume:
        return 0
    checkpoint = latest_checkpoint(Path(config.workspace))
    if checkpoint is None:
        return 0
    return checkpoint_iteration(checkpoint)
