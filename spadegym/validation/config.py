"""``ValidationConfig``: how hard the battery looks, and within which time and memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from spadegym import contract
from spadegym.errors import ConfigError
from spadegym.sandbox import SandboxConfig


def _validation_sandbox() -> SandboxConfig:
    return SandboxConfig(call_timeout=2.0, load_timeout=5.0, kill_grace=1.0)


@dataclass(frozen=True)
class ValidationConfig:
    """How hard validation looks. The defaults take well under a second for a typical program."""

    seeds: int = 5
    """Seeds on which ``solution()`` must win (0..seeds-1); also the procedural sample."""

    large_seeds: int = 3
    """Seeds of at least 10**6 (drawn per program, reproducibly) that are also solved, told
    apart and replayed: the trainer draws seeds up to 2**31, so behaviour must not change there."""

    difficulties: tuple[int, ...] = ()
    """Difficulties (``options={"difficulty": d}``) on which the seed-0 solution must also win."""

    determinism_seeds: int = 3
    """Seeds replayed to check determinism."""

    determinism_runs: int = 2
    """Fresh instances per determinism seed; all must agree."""

    trivial_seeds: int = 3
    """Seeds on which trivial replies, filler text and another seed's solution are tried."""

    shortcut_seeds: int = 16
    """Seeds each promising shortcut solver plays, and again as many fresh seeds to confirm the
    best one (``spadegym.validation.floor``); 0 turns the shortcut check and the floor off."""

    shortcut_turns: int = 4
    """Turns a shortcut solver plays at most (a reply that does not read the game has nothing
    new to say later; four turns let a cycler try four listed options)."""

    shortcut_threshold: float = 0.8
    """Share of instances a shortcut solver may solve (outcome 1.0) before it counts as winning
    nearly every instance and the program is rejected (``spadegym.validation.floor`` says why
    0.8). Partial credit earned without playing is not rejected: it raises the floor."""

    random_games: int = 3
    """Two-player games played with random legal moves; each must end within ``max_turns``."""

    fuzz_examples: int = 50
    """Random action sequences the robustness check plays."""

    fuzz_seed: int = 0
    """Seed of the fuzzer and of the random games, so a verdict is reproducible."""

    step_budget: float = 0.5
    """Seconds any one ``reset``/``step`` the battery plays may take (round trip included)."""

    total_budget: float = 60.0
    """Seconds the whole validation of one program may take; a program that needs longer fails
    (the library's slowest takes about 3 s on a quiet 2-core machine, 15 s on one running two
    validations at a load of 13)."""

    memory_budget_mb: int = 256
    """Peak resident memory of the worker, in MiB (``hint()`` included)."""

    check_env: bool = True
    """Run Gymnasium's ``check_env`` on the ``ProgramEnv`` wrapper."""

    sandbox: SandboxConfig = field(default_factory=_validation_sandbox)
    """The sandbox for the program (isolation, limits, deadlines)."""

    def __post_init__(self) -> None:
        if self.seeds < 2:
            raise ConfigError(f"seeds={self.seeds}: at least 2 are needed to tell seeds apart.")
        if self.determinism_runs < 2:
            raise ConfigError(
                f"determinism_runs={self.determinism_runs}: at least 2 runs are needed to compare."
            )
        for difficulty in self.difficulties:
            contract.check_difficulty(difficulty, "difficulties")
        if self.fuzz_examples < 0 or self.trivial_seeds < 1 or self.determinism_seeds < 1:
            raise ConfigError(
                "fuzz_examples must be >= 0, trivial_seeds and determinism_seeds >= 1."
            )
        if self.large_seeds < 0 or self.random_games < 0:
            raise ConfigError(
                f"large_seeds={self.large_seeds}, random_games={self.random_games}: "
                "use 0 to skip, not a negative count."
            )
        if self.shortcut_seeds < 0 or self.shortcut_turns < 1:
            raise ConfigError(
                f"shortcut_seeds={self.shortcut_seeds}, shortcut_turns={self.shortcut_turns}: "
                "use shortcut_seeds=0 to skip the shortcut check, and at least 1 turn."
            )
        if self.shortcut_seeds and self.shortcut_seeds < 8:
            raise ConfigError(
                f"shortcut_seeds={self.shortcut_seeds}: a shortcut is judged over at least 8 "
                "seeds (fewer cannot tell luck from a shortcut); use 0 to skip the check."
            )
        if not 0.0 < self.shortcut_threshold <= 1.0:
            raise ConfigError(
                f"shortcut_threshold={self.shortcut_threshold!r}: a mean outcome in (0, 1]."
            )
        if not self.step_budget > 0 or not self.total_budget > 0:
            raise ConfigError(
                f"step_budget={self.step_budget!r}, total_budget={self.total_budget!r}: "
                "both must be positive numbers of seconds."
            )
