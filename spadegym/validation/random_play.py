r"""Two-player games played with random legal moves: every game must end within ``max_turns``.

A game that players can keep going forever is cut off by spadegym at ``max_turns`` with no
outcome, so neither player learns anything from it. Which replies are legal is not known from
outside, so moves are drawn from what the observation offers (its lists of moves, the
``\boxed{}`` examples of the observation and the docstring, those templates filled with the
numbers on show, its single words and numbers) and a move counts as illegal when it ends the
game as a loss for the player who made it. Such a move is taken back (the instance is reset
and the kept moves replayed, in the same batch) and another is tried; when every try is
refused, the game ends there, which is fine. All games advance together, one batch a round.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field
from typing import Any

from spadegym.errors import ProgramError
from spadegym.sandbox import answer_or_error, protocol
from spadegym.validation.context import Context, seed_name
from spadegym.validation.episodes import ScriptedEpisode

TRIES_PER_TURN = 8
"""Candidate moves tried per turn before the game is allowed to end on a refused one."""

WORK_PER_TURN = 40
"""Steps (replays included) a game may cost per allowed turn; past that it is not judged."""

PARALLEL = 4
"""Instances per game: after a refused move, this many candidates are tried at once."""

MAX_CANDIDATES = 60
"""Candidates kept per turn, best first."""

_BOXED = re.compile(r"\\boxed\{([^{}]{0,40})\}")
_PIECES = re.compile(r"[,;\n()\[\]]|:\s|\.\s|\bor\b|\band\b")
_PIECE = re.compile(r"^[\w#+\-. ]{1,24}$")
_TOKEN = re.compile(r"[A-Za-z]*\d+[A-Za-z]*|[A-Za-z]{1,12}")
_NUMBER = re.compile(r"\d{1,3}")
_SLOT = re.compile(r"^(?:[A-Z]|\d+|\.\.\.|…|[a-z]+)$")
_SHAPE = str.maketrans(
    {**dict.fromkeys(string.ascii_lowercase, "a"), **dict.fromkeys(string.ascii_uppercase, "A")}
    | dict.fromkeys(string.digits, "9")
)


def shape(move: str) -> str:
    """Letters as ``a``/``A`` and digits as ``9``, runs collapsed: ``b12`` and ``a1`` look alike."""
    return re.sub(r"(.)\1+", r"\1", move.translate(_SHAPE))


def candidate_moves(observation: str, doc: str, rng: random.Random) -> list[str]:
    r"""Replies worth trying, likeliest first, shuffled within each tier.

    Moves the observation lists or shows in ``\boxed{}`` (and the docstring's examples) come
    first when they look like an example (same shape, or the same leading word); then example
    templates filled with the numbers on show, and single words and numbers; the rest last.
    """
    examples = list(dict.fromkeys(e.strip() for e in _BOXED.findall(observation + "\n" + doc)))
    examples = [e for e in examples if e]
    shapes = {shape(e) for e in examples}
    keywords = {}
    for example in examples:
        words = example.split()
        if len(words) > 1 and words[0].isalpha() and words[0].islower():
            keywords[words[0]] = None if "..." in example or "…" in example else len(words)

    def alike(move: str) -> bool:
        words = move.split()
        if shape(move) in shapes:
            return True
        return bool(words) and words[0] in keywords and keywords[words[0]] in (None, len(words))

    pieces = [p.strip(" .") for p in _PIECES.split(observation)]
    listed = [p for p in pieces if _PIECE.match(p) and len(p.split()) <= 4]
    numbers = _NUMBER.findall(observation) or [str(n) for n in range(10)]
    filled = [fill for example in examples for fill in _fills(example, numbers, rng)]
    tokens = _TOKEN.findall(observation)
    tiers: list[list[str]] = [[], [], []]
    for move in dict.fromkeys(m.strip() for m in listed + examples + filled + tokens):
        if not move:
            continue
        listed_or_shown = move in examples or move in listed
        tiers[0 if listed_or_shown and alike(move) else 1 if alike(move) else 2].append(move)
    ordered = []
    for tier in tiers:
        rng.shuffle(tier)
        ordered += tier
    return ["\\boxed{" + move + "}" for move in ordered[:MAX_CANDIDATES]]


def _fills(example: str, numbers: list[str], rng: random.Random) -> list[str]:
    """A template such as ``bid Q F``, ``heap count`` or ``propose ...`` filled with numbers.

    Four variants: every slot after the first word, every slot, and two random mixes (a slot
    is a number, a single capital, a lowercase word or ``...``, which stands for 1-4 numbers).
    """
    words = example.split()
    more = [w for w in words if w in ("...", "…")]
    words = [w for w in words if w not in more]
    if len(words) < 2 and not more:
        return []
    fills = []
    for variant in range(4):
        fill = []
        for k, word in enumerate(words):
            replace = (k > 0, True, rng.random() < 0.5, rng.random() < 0.5)[variant]
            fill.append(rng.choice(numbers) if replace and _SLOT.match(word) else word)
        if more:
            fill += [rng.choice(numbers) for _ in range(rng.randint(1, 4))]
        fills.append(" ".join(fill))
    return fills


@dataclass
class _Game:
    """One game in progress: the moves kept so far, its instances and this turn's candidates.

    The game's state lives on ``instances[current]``; the others have played other moves (or
    a refused one) and are reset and replayed before their next try.
    """

    episode: ScriptedEpisode
    rng: random.Random
    instances: list[int] = field(default_factory=list)
    current: int = 0
    synced: set[int] = field(default_factory=set)
    mover: Any = None
    observation: str = ""
    candidates: list[str] | None = None
    tried: int = 0
    work: int = 0
    over: bool = False

    @property
    def moves(self) -> list[str]:
        return [row[5] for row in self.episode.transcript]


def _refused(result: Any, mover: Any) -> bool:
    """Whether a step ended the game as a loss for its mover (an illegal move, most likely)."""
    if not result.terminated:
        return False
    outcome = result.info.get("outcome")
    return (
        mover in (0, 1)
        and isinstance(outcome, list)
        and len(outcome) == 2
        and type(outcome[mover]) in (int, float)
        and outcome[mover] < 0
    )


def check_game_ends(ctx: Context) -> str | None:
    """Random legal play ends every two-player game within ``max_turns``."""
    if not ctx.two_player or ctx.config.random_games == 0:
        return None
    seeds = range(ctx.config.random_games)
    games = [
        _Game(
            ScriptedEpisode(seed=s, actions=[], label="random game"),
            random.Random(f"{ctx.config.fuzz_seed}-{s}"),
        )
        for s in seeds
    ]
    spares = [
        ScriptedEpisode(seed=s, actions=[], label="spare")
        for s in seeds
        for _ in range(PARALLEL - 1)
    ]
    episodes = [g.episode for g in games]
    ctx.play(episodes + spares, 0, keep=True)  # creates the instances, resets the games'
    ctx.games = episodes
    try:
        for k, game in enumerate(games):
            mine = spares[k * (PARALLEL - 1) : (k + 1) * (PARALLEL - 1)]
            own = game.episode.instance  # None only when creating it failed: the game is over
            game.instances = ([own] if own is not None else []) + [
                e.instance for e in mine if e.instance
            ]
            game.synced = {0}
            game.over = game.episode.error is not None
            game.mover = game.episode.first_info.get("player")
            game.observation = game.episode.first_observation
        limit = WORK_PER_TURN * ctx.max_turns
        while True:
            live = [g for g in games if not g.over and g.work < limit]
            if not live:
                break
            _round(ctx, live)
            for game in live:
                if not game.over and game.episode.turns >= ctx.max_turns:
                    return (
                        f"{seed_name(game.episode.seed)}: random legal moves kept the game going "
                        f"for max_turns={ctx.max_turns} moves without an end (the last ones: "
                        f"{', '.join(repr(m) for m in game.moves[-3:])}). Every game must end "
                        "with terminated=True and info['outcome'] within max_turns: add a move "
                        "limit that ends it (a draw is fine) or raise max_turns."
                    )
    finally:
        ctx.close(episodes + spares)
    for game in games:
        if game.episode.error is not None:
            return ctx.episode_failure(game.episode)
    return None


def _round(ctx: Context, live: list[_Game]) -> None:
    """One round of tries for every live game, all in one batch.

    A turn's first try runs on the game's own instance; after a refusal, several candidates
    run at once, on instances reset and replayed to the game's state.
    """
    requests: list[dict[str, Any]] = []
    tries = []
    for game in live:
        if game.candidates is None:
            game.candidates = candidate_moves(game.observation, ctx.info.doc or "", game.rng)
        width = 1 if game.tried == 0 else min(PARALLEL, TRIES_PER_TURN - game.tried)
        order = [game.current] + [k for k in range(len(game.instances)) if k != game.current]
        chosen = list(zip(order, game.candidates[:width]))
        del game.candidates[:width]
        if not chosen:
            game.over = True
            continue
        for slot, move in chosen:
            iid, start = game.instances[slot], len(requests)
            if slot not in game.synced:
                requests.append(protocol.reset_request(iid, game.episode.seed, None))
                requests += [protocol.step_request(iid, m) for m in game.moves]
            requests.append(protocol.step_request(iid, move))
            game.work += len(requests) - start
            tries.append((game, slot, move, start, len(requests)))
    responses = ctx.exchange(requests)
    results: dict[int, list[Any]] = {}
    for game, slot, move, start, stop in tries:
        pairs = list(zip(requests[start:stop], responses[start:stop], strict=True))
        if len(pairs) > 1:  # a rewind: the replay must go as before
            replayed = [answer_or_error(request, answer) for request, answer in pairs[:-1]]
            if any(isinstance(r, ProgramError) for r in replayed) or any(
                r.terminated or r.truncated for r in replayed[1:]
            ):
                game.over = True  # the replay went differently: determinism's business
                continue
        result = answer_or_error(*pairs[-1])
        results.setdefault(id(game), []).append((slot, move, result))
    for game in live:
        if not game.over:
            _settle(ctx, game, results.get(id(game), []))


def _settle(ctx: Context, game: _Game, tried: list[Any]) -> None:
    """Keep the first try (in candidate order) that was not refused, or end the game."""
    episode = game.episode
    game.synced -= {slot for slot, _, _ in tried}  # each tried instance moved on
    for _, move, result in tried:
        if isinstance(result, ProgramError):
            episode.error = result
            episode.error_during = (
                f"step() on turn {episode.turns + 1} of a random game with action {move!r}"
            )
            game.over = True
            return
    for n, (slot, move, result) in enumerate(tried, game.tried + 1):
        row = [
            result.observation,
            result.reward,
            result.terminated,
            result.truncated,
            result.info,
            move,
        ]
        last_chance = n >= TRIES_PER_TURN or (n == game.tried + len(tried) and not game.candidates)
        if _refused(result, game.mover) and not last_chance:
            ctx.played.append(
                ScriptedEpisode(seed=episode.seed, transcript=[row], label="refused move")
            )
            continue
        episode.transcript.append(row)
        episode.terminated, episode.truncated = result.terminated, result.truncated
        game.over = result.terminated or result.truncated
        game.mover, game.observation = result.info.get("player"), result.observation
        game.current, game.synced = slot, {slot}
        game.candidates, game.tried = None, 0
        return
    game.tried += len(tried)
