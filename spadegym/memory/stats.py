"""Play statistics in the memory's SQLite database.

Every batch of plays is kept (the history), and a per-environment summary row is updated in
the same transaction.

Win rate here is the *mean outcome* of the plays, not the share of outcomes equal to 1:
outcomes lie in ``[-1, 1]`` (CONTRACT.md section 3), partial credit counts in proportion and
penalties pull the rate down. Regret follows SPADE (REFERENCE.md):
``max(0, mean(hint outcomes) - mean(plain outcomes))``, and 0 while there are no hint plays.
The frontier band and the easy/hard cut-offs apply to the plain win rate read against the
environment's chance floor (``contract.chance_adjusted``: what a shortcut solver that does not
play scores is 0), when a floor was recorded with the plays; to the raw rate otherwise.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spadegym import contract
from spadegym.contract import REWARD_MAX, REWARD_MIN
from spadegym.errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS plays (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    env_id TEXT NOT NULL,
    step INTEGER,
    n_plain INTEGER NOT NULL,
    sum_plain REAL NOT NULL,
    n_hint INTEGER NOT NULL,
    sum_hint REAL NOT NULL,
    plain TEXT NOT NULL,
    hint TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS plays_env ON plays(env_id, id);
CREATE TABLE IF NOT EXISTS stats (
    env_id TEXT PRIMARY KEY,
    n_plain INTEGER NOT NULL,
    sum_plain REAL NOT NULL,
    n_hint INTEGER NOT NULL,
    sum_hint REAL NOT NULL,
    win_rate REAL,
    hint_win_rate REAL,
    regret REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS stats_win_rate ON stats(win_rate);
CREATE TABLE IF NOT EXISTS floors (env_id TEXT PRIMARY KEY, floor REAL NOT NULL);
CREATE INDEX IF NOT EXISTS stats_regret ON stats(regret);
"""


@dataclass(frozen=True)
class PlayStats:
    """An environment's play record, over all its history.

    Attributes:
        env_id: the environment.
        title: its title, for prompts.
        skill: its skill tag.
        plays: plain plays plus hint plays.
        n_plain: plays without the hint.
        n_hint: plays with the hint.
        win_rate: mean outcome without the hint (``None`` before any plain play).
        hint_win_rate: mean outcome with the hint (``None`` before any hint play).
        regret: ``max(0, hint_win_rate - win_rate)``; 0 while either is missing.
        updated: time of the last batch (seconds since the epoch).
        floor: the environment's chance floor (the best shortcut solver's mean outcome), as
            last recorded with its plays; ``None`` if none was.
    """

    env_id: str
    title: str
    skill: str
    plays: int
    n_plain: int
    n_hint: int
    win_rate: float | None
    hint_win_rate: float | None
    regret: float
    updated: float
    floor: float | None = None

    @property
    def adjusted(self) -> float | None:
        """The plain win rate read against the floor (``contract.chance_adjusted``)."""
        if self.win_rate is None:
            return None
        return contract.chance_adjusted(self.win_rate, self.floor)


ADJUSTED = (
    "(CASE WHEN f.floor IS NULL THEN s.win_rate WHEN f.floor >= 1.0 THEN 0.0"
    " ELSE (s.win_rate - MAX(f.floor, 0.0)) / (1.0 - MAX(f.floor, 0.0)) END)"
)
"""The SQL of ``PlayStats.adjusted`` (``contract.chance_adjusted``), for ``select``'s clauses."""


@dataclass(frozen=True)
class PlayBatch:
    """One call of ``record_plays``: a point in an environment's history.

    Attributes:
        step: the training step the caller gave, if any.
        plain: outcomes without the hint.
        hint: outcomes with the hint.
        time: when it was recorded.
    """

    step: int | None
    plain: tuple[float, ...]
    hint: tuple[float, ...]
    time: float

    @property
    def regret(self) -> float:
        """This batch's regret alone (0 when one side is empty)."""
        if not self.plain or not self.hint:
            return 0.0
        return contract.regret(sum(self.hint) / len(self.hint), sum(self.plain) / len(self.plain))


def check_outcomes(name: str, outcomes: Sequence[float]) -> tuple[float, ...]:
    """Return ``outcomes`` as floats, refusing values outside the contract's reward range."""
    values = []
    for position, value in enumerate(outcomes):
        number = float(value)
        if not math.isfinite(number) or not REWARD_MIN <= number <= REWARD_MAX:
            raise ConfigError(
                f"{name}[{position}]={value!r} is not an episode outcome: outcomes are finite "
                f"numbers in [{REWARD_MIN}, {REWARD_MAX}] (the last reward of a terminated "
                "episode, else 0); clip or drop it"
            )
        values.append(number)
    return tuple(values)


def insert_batch(
    db: sqlite3.Connection,
    env_id: str,
    plain: tuple[float, ...],
    hint: tuple[float, ...],
    step: int | None,
    now: float,
    floor: float | None = None,
) -> None:
    """Append a batch and update the summary row; the caller holds the transaction."""
    if floor is not None:
        db.execute("INSERT OR REPLACE INTO floors (env_id, floor) VALUES (?, ?)", (env_id, floor))
    db.execute(
        "INSERT INTO plays (env_id, step, n_plain, sum_plain, n_hint, sum_hint, plain, hint,"
        " created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            env_id,
            step,
            len(plain),
            sum(plain),
            len(hint),
            sum(hint),
            json.dumps(plain),
            json.dumps(hint),
            now,
        ),
    )
    row = db.execute(
        "SELECT n_plain, sum_plain, n_hint, sum_hint FROM stats WHERE env_id = ?", (env_id,)
    ).fetchone()
    n_plain, sum_plain, n_hint, sum_hint = row if row else (0, 0.0, 0, 0.0)
    n_plain, sum_plain = n_plain + len(plain), sum_plain + sum(plain)
    n_hint, sum_hint = n_hint + len(hint), sum_hint + sum(hint)
    win = sum_plain / n_plain if n_plain else None
    hint_win = sum_hint / n_hint if n_hint else None
    regret = contract.regret(hint_win, win) if win is not None and hint_win is not None else 0.0
    db.execute(
        "INSERT OR REPLACE INTO stats (env_id, n_plain, sum_plain, n_hint, sum_hint, win_rate,"
        " hint_win_rate, regret, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (env_id, n_plain, sum_plain, n_hint, sum_hint, win, hint_win, regret, now),
    )


_SELECT = (
    "SELECT s.env_id, e.title, e.skill, s.n_plain, s.n_hint, s.win_rate, s.hint_win_rate,"
    " s.regret, s.updated, f.floor FROM stats s JOIN envs e ON e.env_id = s.env_id"
    " LEFT JOIN floors f ON f.env_id = s.env_id"
)


def _row(row: tuple[Any, ...]) -> PlayStats:
    env_id, title, skill, n_plain, n_hint, win, hint_win, regret, updated, floor = row
    return PlayStats(
        env_id,
        title,
        skill,
        n_plain + n_hint,
        n_plain,
        n_hint,
        win,
        hint_win,
        regret,
        updated,
        floor,
    )


def stats_of(db: sqlite3.Connection, env_id: str) -> PlayStats | None:
    """The summary of one environment, or ``None`` before its first play."""
    row = db.execute(_SELECT + " WHERE s.env_id = ?", (env_id,)).fetchone()
    return _row(row) if row else None


def history_of(db: sqlite3.Connection, env_id: str) -> list[PlayBatch]:
    """Every batch of one environment, oldest first."""
    rows = db.execute(
        "SELECT step, plain, hint, created FROM plays WHERE env_id = ? ORDER BY id", (env_id,)
    )
    return [
        PlayBatch(step, tuple(json.loads(p)), tuple(json.loads(h)), t) for step, p, h, t in rows
    ]


def select(
    db: sqlite3.Connection,
    where: str,
    params: tuple[Any, ...],
    order: str,
    k: int,
    skill: str | None,
) -> list[PlayStats]:
    """Summaries matching ``where`` (about ``s.``), optionally of one skill, best ``k``."""
    if k < 0:
        raise ConfigError(f"k={k} must be zero or more")
    if skill is not None:
        where, params = f"({where}) AND e.skill = ?", (*params, skill)
    rows = db.execute(f"{_SELECT} WHERE {where} ORDER BY {order} LIMIT ?", (*params, k))
    return [_row(row) for row in rows]
