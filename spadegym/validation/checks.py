"""The behavioural checks: each takes what earlier ones learned and returns a failure or None.

Every message is one or two sentences for the designer model: what went wrong, on which seed
or action, and what to change.
"""

from __future__ import annotations

import random
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from spadegym import contract
from spadegym.sandbox import ProgramInfo
from spadegym.sandbox.pool import Worker
from spadegym.validation.episodes import Episode, play

PROBE_ACTIONS = ["\\boxed{1}", "\\boxed{test}", "\\boxed{42}", ""]
"""Replies played where a program has no solution (SPADE's smoke test, plus an empty reply)."""

TRIVIAL_REPLIES = {"an empty reply": "", "an empty \\boxed{}": "\\boxed{}"}

_WORDS = (
    "apple river stone seven blue quickly answer maybe yes no left right up down move "
    "take drop open close north south east west one two three"
).split()


@dataclass
class Context:
    """What the behavioural checks share about one program under validation."""

    worker: Worker
    info: ProgramInfo
    max_turns: int
    config: Any
    solved: list[Episode] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def two_player(self) -> bool:
        """Whether the program is a two-player game."""
        return self.info.num_players == 2

    def episode_failure(self, episode: Episode) -> str:
        """A sentence for an episode that hit a program error."""
        return f"Seed {episode.seed}: {episode.error_during} failed: {episode.error}"


def random_words(seed: int, count: int = 6) -> str:
    """A reply of random words (seeded), a stand-in for a reply that carries no thought."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_WORDS) for _ in range(count))


def check_solvable(ctx: Context) -> str | None:
    """``solution()`` wins every tested seed (and difficulty) within ``max_turns``."""
    cfg = ctx.config
    if ctx.two_player:
        return None
    if not ctx.info.has_solution:
        return (
            "The environment has no solution() method; one-player environments must return "
            "the list of replies that wins the current instance."
        )
    episodes = [Episode(seed=s, use_solution=True, label="seed") for s in range(cfg.seeds)]
    episodes += [
        Episode(seed=0, options={"difficulty": d}, use_solution=True, label="difficulty")
        for d in cfg.difficulties
    ]
    play(ctx.worker, ctx.info, episodes, ctx.max_turns)
    ctx.solved = [e for e in episodes if e.label == "seed"]
    for episode in episodes:
        where = f"Seed {episode.seed}" + (
            f" at difficulty {episode.options['difficulty']}" if episode.options else ""
        )
        if episode.error is not None:
            return ctx.episode_failure(episode)
        if episode.solution and len(episode.solution) > ctx.max_turns:
            return (
                f"{where}: solution() has {len(episode.solution)} replies but max_turns is "
                f"{ctx.max_turns}; raise max_turns or shorten the game."
            )
        if not episode.won():
            how = (
                f"the episode ended with reward {episode.outcome()}"
                if episode.terminated
                else "the episode did not terminate after the last solution reply"
            )
            return (
                f"{where}: playing solution() ({episode.turns} replies) does not win: {how}. "
                "solution() must return replies that win with reward 1.0 and terminated=True."
            )
    lengths = [len(e.solution or []) for e in ctx.solved]
    ctx.properties["solution_turns"] = lengths
    return None


def check_procedural(ctx: Context) -> str | None:
    """Different seeds give different instances."""
    seeds = list(range(ctx.config.seeds))
    if ctx.solved:
        views = {(e.first_observation, tuple(e.solution or ())) for e in ctx.solved}
    else:
        episodes = [Episode(seed=s, actions=[]) for s in seeds]
        play(ctx.worker, ctx.info, episodes, 0)
        views = {e.first_observation for e in episodes}
    needed = min(3, len(seeds))
    if len(views) < needed:
        return (
            f"Seeds {seeds[0]}..{seeds[-1]} gave only {len(views)} distinct instance(s); build "
            "each instance from random.Random(seed) in reset() so seeds differ."
        )
    return None


def _transcript_key(episode: Episode) -> Any:
    return (
        episode.first_observation,
        episode.first_info,
        [row[:5] for row in episode.transcript],
        None if episode.error is None else str(episode.error),
    )


def check_determinism(ctx: Context) -> str | None:
    """The same seed and actions give the same observations, rewards and infos."""
    cfg = ctx.config
    runs = []
    for seed in range(cfg.determinism_seeds):
        solved = ctx.solved[seed] if seed < len(ctx.solved) else None
        actions = list(solved.solution) if solved and solved.solution else list(PROBE_ACTIONS)
        runs.append([Episode(seed=seed, actions=actions) for _ in range(cfg.determinism_runs)])
    play(ctx.worker, ctx.info, [e for group in runs for e in group], ctx.max_turns)
    for group in runs:
        first = _transcript_key(group[0])
        for other in group[1:]:
            if _transcript_key(other) != first:
                return (
                    f"Seed {group[0].seed}: two runs with the same seed and actions differ. "
                    "Take all randomness from random.Random(seed) made in reset(), keep no "
                    "state between instances, and never use time, id() or set order."
                )
    return None


def check_not_trivial(ctx: Context) -> str | None:
    """Replies that carry no thought never win; one seed's solution does not win most others."""
    cfg = ctx.config
    seeds = list(range(cfg.trivial_seeds))
    if ctx.two_player:
        return _check_illegal_move_loses(ctx)
    episodes = []
    for seed in seeds:
        replies = {**TRIVIAL_REPLIES, "random words": random_words(seed)}
        for label, reply in replies.items():
            episodes.append(Episode(seed=seed, repeat=reply, label=label))
        if len(ctx.solved) > 1:
            donor = ctx.solved[(seed + 1) % len(ctx.solved)]
            if donor.seed != seed and donor.solution:
                episodes.append(
                    Episode(
                        seed=seed,
                        actions=list(donor.solution),
                        label=f"the solution of seed {donor.seed}",
                    )
                )
    play(ctx.worker, ctx.info, episodes, ctx.max_turns)
    borrowed_wins = 0
    for episode in episodes:
        if episode.error is not None:
            continue  # robustness is judged by its own check
        if episode.won():
            if episode.label.startswith("the solution"):
                borrowed_wins += 1
                continue
            return (
                f"Seed {episode.seed}: {episode.label}, repeated every turn, wins. Winning "
                "must require the right moves for this instance."
            )
    if borrowed_wins * 2 > len(seeds) and borrowed_wins > 0:
        return (
            f"Another seed's solution wins {borrowed_wins} of {len(seeds)} seeds: the "
            "instances are too alike. Make the answer depend on the seed."
        )
    first = next((e for e in episodes if e.repeat == "" and e.transcript), None)
    reacts = False
    if ctx.solved and first is not None and ctx.solved[0].transcript:
        reacts = ctx.solved[0].transcript[0][0] != first.transcript[0][0]
    lengths = ctx.properties.get("solution_turns") or [0]
    ctx.properties["multi_turn"] = bool(statistics.median(lengths) >= 2 and reacts)
    return None


def _check_illegal_move_loses(ctx: Context) -> str | None:
    episodes = [Episode(seed=s, actions=[""]) for s in range(ctx.config.trivial_seeds)]
    play(ctx.worker, ctx.info, episodes, 1)
    for episode in episodes:
        if episode.error is not None:
            continue
        player = episode.first_info.get("player")
        if player not in (0, 1):
            return (
                f"Seed {episode.seed}: reset() must put the player to act in info['player'] "
                "(0 or 1) in a two-player game."
            )
        if not episode.terminated:
            return (
                f"Seed {episode.seed}: an empty reply did not end the game; an illegal move "
                "must end it as a loss for the player who made it."
            )
        outcome = episode.transcript[-1][4].get("outcome")
        if (
            not isinstance(outcome, list)
            or len(outcome) != 2
            or not all(isinstance(x, int | float) for x in outcome)
            or abs(outcome[0] + outcome[1]) > 1e-9
            or not outcome[player] < 0
        ):
            return (
                f"Seed {episode.seed}: after an illegal move info['outcome'] is {outcome!r}; "
                "it must be [r0, r1] with r0 + r1 == 0 and a negative value for the mover."
            )
    ctx.properties["multi_turn"] = True
    return None


_SENTENCE_END = re.compile(r"[.!?](\s|$)")


def check_hint(ctx: Context) -> str | None:
    """``hint()``: short, a few sentences, and it does not give the answer away."""
    if not ctx.info.has_hint:
        ctx.properties["hint"] = None
        return None
    seeds = range(min(3, ctx.config.seeds))
    hints = []
    for seed in seeds:
        episode = ctx.solved[seed] if seed < len(ctx.solved) else None
        hint = _hint_for(ctx, seed)
        if isinstance(hint, Exception):
            return f"Seed {seed}: hint() failed: {hint}"
        hints.append(hint)
        if not hint.strip():
            return f"Seed {seed}: hint() returned an empty string; return 1-3 sentences."
        if len(hint) >= contract.MAX_HINT_CHARS:
            return (
                f"Seed {seed}: hint() is {len(hint)} characters; keep it under "
                f"{contract.MAX_HINT_CHARS} (1-3 sentences)."
            )
        if len(_SENTENCE_END.findall(hint)) > 3:
            return f"Seed {seed}: hint() has more than 3 sentences; keep it to 1-3."
        leak = hint_leak(hint, episode.solution if episode else None)
        if leak:
            return (
                f"Seed {seed}: hint() contains {leak}, which gives the answer away; describe "
                "the approach, not the moves."
            )
    ctx.properties["hint"] = hints[0] if hints else None
    return None


def _hint_for(ctx: Context, seed: int) -> str | Exception:
    from spadegym.errors import ProgramError

    worker = ctx.worker
    try:
        instance = worker.new(ctx.info.program)
        try:
            worker.reset(instance, seed, None)
            return worker.hint(instance)
        finally:
            worker.close_instance(instance)
    except ProgramError as exc:
        return exc


_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def _specific(answer: str) -> bool:
    """Whether an answer is distinctive enough that seeing it in a hint is a leak."""
    return len(answer) >= 3 and (any(c.isdigit() for c in answer) or len(answer) >= 6)


def hint_leak(hint: str, solution: list[str] | None) -> str | None:
    """The final answer (when distinctive) or a long solution reply, verbatim in the hint."""
    if not solution:
        return None
    folded = " ".join(hint.lower().split())
    for action in solution:
        text = " ".join(action.lower().split())
        if len(text) >= 8 and text in folded:
            return f"the solution reply {text[:60]!r}"
    answers = [" ".join(a.lower().split()) for action in solution for a in _BOXED.findall(action)]
    final = answers[-1] if answers else ""
    if _specific(final) and re.search(r"(?<!\w)" + re.escape(final) + r"(?!\w)", folded):
        return f"the final answer {final[:60]!r}"
    return None
