"""The report's figures, drawn with matplotlib (Agg, no display) and saved as PNG files.

Each function takes plain data and a path, writes one image, and returns its caption. Labels a
program chose (its skill) are drawn as plain text: matplotlib would read ``$...$`` as mathtext
(and raise on malformed mathtext) and TeX commands under ``usetex``, so every figure is drawn
with both off, and control characters are shown as escapes.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from spadegym.cli.output import terminal
from spadegym.errors import ConfigError
from spadegym.report.data import EnvCard, Funnel

_KIND_COLOURS = {"puzzle": "#4c72b0", "tool": "#dd8452", "two_player": "#55a868"}


def _pyplot() -> Any:
    try:
        import matplotlib
    except ModuleNotFoundError as exc:
        raise ConfigError(
            "the report's plots need matplotlib: pip install 'spadegym[report]'."
        ) from exc
    matplotlib.use("Agg", force=True)  # files only: never open a window
    import matplotlib.pyplot as plt

    return plt


_PLAIN_TEXT = {"text.usetex": False, "text.parse_math": False}


def _plain_text(draw: Callable[..., str]) -> Callable[..., str]:
    """Draw (and save) a figure with every text drawn as plain text."""

    @functools.wraps(draw)
    def plain(*args: Any, **kwargs: Any) -> str:
        with _pyplot().rc_context(_PLAIN_TEXT):
            return draw(*args, **kwargs)

    return plain


def _label(text: object) -> str:
    """A program-supplied label as one line of visible characters."""
    return terminal(text).replace("\n", "\\n").replace("\t", " ")


def _save(fig: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    _pyplot().close(fig)


@_plain_text
def skills_and_kinds(cards: Sequence[EnvCard], path: Path) -> str:
    """A stacked bar per skill, split by kind."""
    plt = _pyplot()
    counts = Counter((_label(c.skill), c.kind) for c in cards)
    skills = sorted({_label(c.skill) for c in cards}) or ["(none)"]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(skills) + 1.5))
    left = [0] * len(skills)
    for kind, colour in _KIND_COLOURS.items():
        widths = [counts.get((s, kind), 0) for s in skills]
        if any(widths):
            ax.barh(skills, widths, left=left, color=colour, label=kind)
            left = [a + b for a, b in zip(left, widths)]
    ax.set_xlabel("environments")
    ax.invert_yaxis()
    if cards:
        ax.legend(loc="lower right")
    ax.set_title("Environments per skill and kind")
    _save(fig, path)
    return f"{len(cards)} environments over {len(set(c.skill for c in cards))} skills."


@_plain_text
def funnel(data: Funnel, path: Path) -> str:
    """Generated, valid, novel, registered, as falling bars."""
    plt = _pyplot()
    stages = ["generated", "valid", "novel", "registered"]
    values = [data.generated, data.valid, data.novel, data.registered]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    bars = ax.bar(stages, values, color=["#8172b3", "#4c72b0", "#64b5cd", "#55a868"])
    for bar, value in zip(bars, values):
        ax.annotate(
            str(value),
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
        )
    ax.set_ylabel("programs")
    ax.set_ylim(0, max(values + [1]) * 1.15)
    ax.set_title("Validation funnel")
    _save(fig, path)
    return f"From {data.source}."


@_plain_text
def check_times(seconds: dict[str, list[float]], source: str, path: Path) -> str:
    """Mean and slowest time per validation check."""
    plt = _pyplot()
    names = [_label(name) for name in seconds] or ["(none)"]
    means = [1000 * sum(v) / len(v) if v else 0.0 for v in seconds.values()] or [0.0]
    peaks = [1000 * max(v) if v else 0.0 for v in seconds.values()] or [0.0]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(names) + 1.5))
    ax.barh(names, peaks, color="#c5d3e8", label="slowest")
    ax.barh(names, means, color="#4c72b0", label="mean")
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("milliseconds")
    ax.invert_yaxis()
    ax.legend(loc="lower right")
    ax.set_title("Time per check")
    _save(fig, path)
    runs = max((len(v) for v in seconds.values()), default=0)
    return f"Measured over {runs} validation(s) ({source})."


@_plain_text
def win_rate_vs_regret(cards: Sequence[EnvCard], path: Path) -> str:
    """Each environment with statistics: plain win rate against regret."""
    plt = _pyplot()
    known = [c for c in cards if c.stats and c.stats.get("win_rate") is not None]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for kind, colour in _KIND_COLOURS.items():
        mine = [c.stats for c in known if c.kind == kind and c.stats]
        if mine:
            ax.scatter(
                [stats["win_rate"] for stats in mine],
                [stats["regret"] for stats in mine],
                color=colour,
                label=kind,
                alpha=0.8,
            )
    ax.axvspan(0.15, 0.85, color="#eeeeee", zorder=0, label="frontier band")
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("win rate without hint (mean outcome)")
    ax.set_ylabel("regret: max(0, hint - plain)")
    ax.legend(loc="upper left", fontsize="small")
    ax.set_title("Win rate against regret")
    _save(fig, path)
    return f"{len(known)} environment(s) with play statistics."
