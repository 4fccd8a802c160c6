"""``build_report``: a static HTML page of a registry and its memory, with figures as PNG files.

The page (``index.html``, no server, no scripts) has a card per environment (title, skill,
kind, the validation checks, play statistics, and a sample episode played by the
environment's solution) and figures: environments per skill and kind, the validation funnel
(generated, valid, novel, registered), time per check, and, where play statistics exist, win
rate against regret. matplotlib is needed (the ``report`` extra). Program-supplied text is
shown as plain text on the page and in the figures; an environment whose card cannot be built,
or a figure that cannot be drawn, becomes a note, and the page stands.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.errors import ConfigError
from spadegym.report.data import (
    EnvCard,
    Funnel,
    ReportData,
    Step,
    card_of,
    check_seconds_of,
    funnel_from_generation,
    funnel_from_logs,
    funnel_from_registries,
    play_sample,
)

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike

__all__ = ["EnvCard", "Funnel", "ReportData", "Step", "build_report", "collect"]


def collect(
    *,
    roots: Sequence[str | Path] | None = None,
    memory: MemoryLike | None = None,
    generation: Sequence[Any] = (),
    validation_reports: Sequence[Any] | None = None,
    timing_sample: int = 6,
    title: str = "spadegym report",
    notes: Sequence[str] = (),
    workers: int | None = None,
) -> ReportData:
    """Gather what the page shows; see ``build_report`` for the arguments."""
    from spadegym.registry import Registry, default_roots
    from spadegym.sandbox import SandboxPool

    chosen = [Path(r) for r in (roots if roots is not None else default_roots())]
    registries = [Registry(r) for r in chosen if r.is_dir()]
    envs, seen = [], set()
    for registry in registries:
        for entry in registry.list():
            if entry.id not in seen:
                seen.add(entry.id)
                envs.append(registry.get(entry.id))
    cards: list[EnvCard] = []
    sources: list[str] = []
    pool = SandboxPool(workers or min(2, os.cpu_count() or 1))
    try:
        for env in envs:
            try:
                stats = memory.stats(env.id) if memory is not None else None
                card = card_of(env, stats)
                source = env.source()
                play_sample(card, source, pool)
            except Exception as exc:  # one bad environment never takes the page down
                cards.append(_unreadable(env.id, exc))
                continue
            cards.append(card)
            sources.append(source)
    finally:
        pool.close()

    if generation:
        funnel = funnel_from_generation(list(generation))
    else:
        logs = sorted(p for r in chosen for p in (r.parent / "generate-logs").glob("*.jsonl"))
        funnel = funnel_from_logs(logs) or funnel_from_registries(registries)

    if validation_reports is not None:
        reports, how = list(validation_reports), "the validations of this run"
    elif timing_sample > 0 and sources:
        from spadegym.validation import validate_many

        reports = validate_many(sources[:timing_sample], workers=workers or 2)
        how = f"a fresh validation of {len(reports)} registered environment(s)"
    else:
        reports, how = [], "no validations"
    return ReportData(
        title,
        cards,
        funnel,
        check_seconds_of(reports),
        how,
        [str(r) for r in chosen if r.is_dir()],
        str(getattr(memory, "path", "")) or None if memory is not None else None,
        list(notes),
    )


def _unreadable(env_id: str, exc: Exception) -> EnvCard:
    """The card of an environment whose card could not be built: its id and why."""
    return EnvCard(
        env_id,
        env_id,
        f"This card could not be built ({type(exc).__name__}: {str(exc)[:300]}).",
        "-",
        "-",
        0,
        transcript_note="none",
    )


def _figure(notes: list[str], title: str, draw: Any) -> str | None:
    """A figure's caption, or None (and a note) when it could not be drawn."""
    try:
        return draw()
    except ConfigError:
        raise
    except Exception as exc:
        notes.append(f"The figure '{title}' could not be drawn ({type(exc).__name__}: {exc}).")
        return None


def build_report(
    out: str | Path,
    *,
    roots: Sequence[str | Path] | None = None,
    memory: MemoryLike | None = None,
    generation: Sequence[Any] = (),
    validation_reports: Sequence[Any] | None = None,
    timing_sample: int = 6,
    title: str = "spadegym report",
    notes: Sequence[str] = (),
    workers: int | None = None,
) -> Path:
    """Write ``out/index.html`` and its figures under ``out/img/``; returns the page's path.

    Args:
        out: the folder (created if missing).
        roots: registry folders; every default root when ``None``.
        memory: an ``EnvironmentMemory`` whose play statistics go on the cards and the
            win-rate figure.
        generation: ``GenerationReport`` objects (or their dicts) for the funnel; without
            them the funnel is read from the ``generate-logs/`` beside each root, or from the
            registry folders alone.
        validation_reports: ``ValidationReport`` objects for the time-per-check figure;
            without them ``timing_sample`` registered programs are validated to measure it.
        timing_sample: how many programs to validate for timings (0: none).
        title: the page's heading.
        notes: paragraphs shown under the heading.
        workers: sandbox workers for the sample episodes and validations.

    Raises:
        ConfigError: matplotlib is missing.
    """
    from spadegym.report import html, plots

    plots._pyplot()  # fail before any work when matplotlib is missing
    data = collect(
        roots=roots,
        memory=memory,
        generation=generation,
        validation_reports=validation_reports,
        timing_sample=timing_sample,
        title=title,
        notes=notes,
        workers=workers,
    )
    out = Path(out)
    images = out / "img"
    images.mkdir(parents=True, exist_ok=True)
    wanted = [
        (
            "img/skills.png",
            "Environments per skill and kind",
            lambda: plots.skills_and_kinds(data.cards, images / "skills.png"),
        ),
        (
            "img/funnel.png",
            "Validation funnel",
            lambda: plots.funnel(data.funnel, images / "funnel.png"),
        ),
    ]
    if data.check_seconds:
        wanted.append(
            (
                "img/check_times.png",
                "Time per check",
                lambda: plots.check_times(
                    data.check_seconds, data.check_source, images / "check_times.png"
                ),
            )
        )
    if any(c.stats and c.stats.get("win_rate") is not None for c in data.cards):
        wanted.append(
            (
                "img/win_rate_regret.png",
                "Win rate against regret",
                lambda: plots.win_rate_vs_regret(data.cards, images / "win_rate_regret.png"),
            )
        )
    else:
        data.notes.append(
            "No play statistics yet: `spadegym eval --llm SPEC` plays the "
            "environments and records them in the memory."
        )
    figures = []
    for src, title, draw in wanted:
        caption = _figure(data.notes, title, draw)
        if caption is not None:
            figures.append((src, title, caption))
    page = out / "index.html"
    page.write_text(html.render(data, figures), encoding="utf-8")
    return page
