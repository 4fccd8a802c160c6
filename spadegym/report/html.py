"""The report page: one static HTML file with its styles inline and its figures beside it.

Every string a program chose (titles, descriptions, skills, observations, actions, error
messages) is shown as plain text: HTML-escaped, with control characters as visible escapes. A
card that cannot be drawn becomes a short note naming the environment; the rest of the page
stands.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import SupportsFloat

from spadegym.cli.output import terminal
from spadegym.report.data import EnvCard, ReportData

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222;
       padding: 0 1em; }
h1 { margin-bottom: 0.2em; } .lead { color: #555; margin-top: 0; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr));
           gap: 1em; }
figure { margin: 0; border: 1px solid #ddd; border-radius: 6px; padding: 0.5em; }
figure img { max-width: 100%; } figcaption { color: #555; font-size: 0.9em; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr));
         gap: 1em; }
.card { border: 1px solid #ccc; border-radius: 6px; padding: 0.8em 1em; }
.card h3 { margin: 0 0 0.2em 0; } .meta { color: #555; font-size: 0.9em; margin: 0; }
.tag { display: inline-block; background: #eef; border-radius: 4px; padding: 0 0.4em;
       margin-right: 0.3em; }
.checks { list-style: none; padding: 0; margin: 0.5em 0; font-size: 0.85em; }
.checks li { display: inline-block; margin: 0 0.3em 0.2em 0; padding: 0 0.4em;
             border-radius: 4px; }
.pass { background: #e3f4e3; } .fail { background: #f8dcdc; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f6f6; padding: 0.4em;
      border-radius: 4px; font-size: 0.82em; margin: 0.2em 0; }
.act pre { background: #eef4ff; } .stats { font-size: 0.9em; }
details summary { cursor: pointer; color: #335; }
"""


def _e(text: object) -> str:
    return html.escape(terminal(text), quote=True)


def _num(value: SupportsFloat | str | None) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def _card(card: EnvCard) -> str:
    checks = "".join(f'<li class="pass">{_e(n)}</li>' for n in card.passed)
    checks += "".join(f'<li class="fail">{_e(n)}</li>' for n in card.failed)
    parts = [
        f'<article class="card" id="{_e(card.anchor)}" data-env-id="{_e(card.env_id)}">',
        f"<h3>{_e(card.title)}</h3>",
        f'<p class="meta"><code>{_e(card.env_id)}</code> <span class="tag">'
        f'{_e(card.skill)}</span><span class="tag">{_e(card.kind)}</span> '
        f"at most {card.max_turns} turns</p>",
    ]
    if card.description:
        parts.append(f"<p>{_e(card.description)}</p>")
    parts.append(f'<ul class="checks" title="validation checks">{checks}</ul>')
    if card.floor is not None:
        parts.append(
            f'<p class="stats">chance floor {_num(card.floor)}'
            + (f" ({_e(card.floor_shortcut)})" if card.floor_shortcut else "")
            + ": what a solver scores without playing</p>"
        )
    if card.stats:
        s = card.stats
        adjusted = s.get("adjusted")
        parts.append(
            f'<p class="stats">{s["plays"]} plays: win rate {_num(s["win_rate"])} '
            f"without hint, {_num(s['hint_win_rate'])} with it, regret "
            f"{_num(s['regret'])}"
            + (f", {_num(adjusted)} above the floor" if adjusted is not None else "")
            + "</p>"
        )
    if card.provenance:
        parts.append(
            '<p class="meta">'
            + ", ".join(f"{_e(k)}: {_e(v)}" for k, v in card.provenance.items())
            + "</p>"
        )
    parts.append(
        '<details class="transcript"><summary>Sample episode'
        f"{': ' + _e(card.transcript_note) if card.transcript_note else ''}"
        + (f", outcome {_e(card.outcome)}" if card.outcome is not None else "")
        + "</summary>"
    )
    parts.append(f'<div class="obs"><pre>{_e(card.first_observation)}</pre></div>')
    for step in card.transcript:
        parts.append(
            f'<div class="act"><pre>&gt; {_e(step.action)}</pre></div>'
            f'<div class="obs"><pre>{_e(step.observation)}\n[reward '
            f"{step.reward:g}]</pre></div>"
        )
    parts.append("</details></article>")
    return "\n".join(parts)


def _card_or_note(card: EnvCard) -> str:
    """The card, or a note that it could not be drawn (one bad card never loses the page)."""
    try:
        return _card(card)
    except Exception as exc:
        env_id = getattr(card, "env_id", "?")
        return (
            f'<article class="card" data-env-id="{_e(env_id)}"><h3>{_e(env_id)}</h3>'
            f'<p class="meta">This card could not be drawn ({_e(type(exc).__name__)}: '
            f"{_e(str(exc)[:300])}).</p></article>"
        )


def render(data: ReportData, figures: Sequence[tuple[str, str, str]]) -> str:
    """The page: a header, the figures (file, title, caption) and a card per environment."""
    figs = "\n".join(
        f'<figure><img src="{_e(src)}" alt="{_e(title)}"><figcaption><b>{_e(title)}.</b> '
        f"{_e(caption)}</figcaption></figure>"
        for src, title, caption in figures
    )
    notes = "".join(f'<p class="lead">{_e(n)}</p>' for n in data.notes)
    roots = ", ".join(f"<code>{_e(r)}</code>" for r in data.roots) or "none"
    memory = f"<code>{_e(data.memory_path)}</code>" if data.memory_path else "none"
    cards = "\n".join(_card_or_note(c) for c in data.cards)
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{_e(data.title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{_e(data.title)}</h1>
<p class="lead">{len(data.cards)} environments. Registries: {roots}. Memory: {memory}.</p>
{notes}
<h2>Figures</h2>
<section class="figures">
{figs}
</section>
<h2>Environments</h2>
<section class="cards">
{cards}
</section>
</body>
</html>
"""
