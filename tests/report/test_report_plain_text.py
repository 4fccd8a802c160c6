"""The report shows program-supplied text as plain text, and one bad card never loses the page.

A skill such as ``$\\frac{$`` is malformed matplotlib mathtext: drawn as a label it raised and
took the whole report down (issue 25). Titles and transcripts may hold ``<script>``, control
characters and bidirectional controls.
"""

from __future__ import annotations

import pytest
from sample_programs import example_registry

import spadegym.report as report
from spadegym.registry import Registry
from spadegym.report import build_report, html, plots
from spadegym.report.data import EnvCard, Funnel, ReportData, Step

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"
HOSTILE = [
    "$\\frac{$",
    "$x$ and $$",
    "price $5 \\$ ^_^ $\\alpha",
    "<script>alert(1)</script>",
    "\x1b[2J\x07bell\x00nul\u202eevil\u200b",
    "line\nbreak\ttab",
    "\\textbf{tex}",
]


def hostile_cards() -> list[EnvCard]:
    cards = []
    for index, text in enumerate(HOSTILE):
        card = EnvCard(f"spade/Hostile{index}-v0", text, text, text, "puzzle", 3)
        card.first_observation = text
        card.transcript = [Step(text, text, 1.0)]
        card.transcript_note = text
        card.provenance = {"designer": text}
        cards.append(card)
    return cards


def test_figures_draw_hostile_skills_as_plain_text(tmp_path):
    path = tmp_path / "skills.png"
    caption = plots.skills_and_kinds(hostile_cards(), path)
    assert path.read_bytes().startswith(PNG) and caption.startswith("7 environments")
    times = tmp_path / "times.png"
    plots.check_times({text: [0.1] for text in HOSTILE}, "tests", times)
    assert times.read_bytes().startswith(PNG)


def test_the_page_escapes_every_program_string():
    page = html.render(
        ReportData("t", hostile_cards(), Funnel(1, 1, 1, 1, "x"), {}, "none", []), []
    )
    assert "<script>" not in page and "&lt;script&gt;" in page
    for raw in ("\x1b", "\x00", "\x07", "\u202e", "\u200b"):
        assert raw not in page
    assert "\\x1b[2J" in page and "\\u202e" in page
    assert page.count('class="card"') == len(HOSTILE)


def test_a_card_that_cannot_be_drawn_leaves_the_others():
    cards = hostile_cards()
    cards[1].stats = {"plays": 3}  # no win rate: drawing the card raises KeyError
    page = html.render(ReportData("t", cards, Funnel(1, 1, 1, 1, "x"), {}, "none", []), [])
    assert page.count('class="card"') == len(HOSTILE)
    assert "This card could not be drawn (KeyError" in page
    assert 'data-env-id="spade/Hostile2-v0"' in page


@pytest.mark.usefixtures("isolated_spadegym")
def test_one_environment_that_breaks_its_card_leaves_the_page(tmp_path, monkeypatch):
    root = example_registry(tmp_path / "registry")
    real = report.card_of
    broken = []

    def card_of(env, stats=None):
        if not broken:
            broken.append(env.id)
            raise ValueError("$\\frac{ a broken manifest")
        card = real(env, stats)
        card.skill = "$\\frac{$"  # malformed mathtext on the figure's axis
        return card

    monkeypatch.setattr(report, "card_of", card_of)
    page = build_report(tmp_path / "out", roots=[root], timing_sample=0, workers=1)
    text = page.read_text(encoding="utf-8")
    assert f'data-env-id="{broken[0]}"' in text
    assert "This card could not be built (ValueError: $\\frac{ a broken manifest)" in text
    assert (tmp_path / "out" / "img" / "skills.png").read_bytes().startswith(PNG)
    assert text.count('class="card"') == len(Registry(root).list()) >= 2


def test_a_card_shows_the_chance_floor_and_the_rate_above_it():
    from spadegym.memory.stats import PlayStats
    from spadegym.registry import Registry, shipped_root
    from spadegym.report.data import card_of
    from spadegym.report.html import _card

    env = Registry(shipped_root()).get("spade/NumberPick-v0")
    stats = PlayStats(env.id, "t", "s", 8, 8, 0, 0.75, None, 0.0, 0.0)
    card = card_of(env, stats)
    assert card.floor == env.manifest.floor and 0.2 < card.floor < 0.8
    html = _card(card)
    assert f"chance floor {card.floor:.2f} ({card.floor_shortcut})" in html
    adjusted = (0.75 - card.floor) / (1 - card.floor)
    assert f"{adjusted:.2f} above the floor" in html
