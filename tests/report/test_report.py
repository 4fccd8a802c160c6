"""``build_report`` and ``spadegym report``: the page, rendered by a headless browser, shows a
card per environment and every figure, and every figure is a PNG file beside it."""

from __future__ import annotations

import html.parser
import shutil
import subprocess
from pathlib import Path

import pytest
from sample_programs import example_registry

from spadegym.cli import main
from spadegym.registry import Registry
from spadegym.report import build_report
from spadegym.report.data import funnel_from_generation, funnel_from_logs

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


pytestmark = pytest.mark.usefixtures("isolated_spadegym")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return example_registry(tmp_path_factory.mktemp("report") / "registry")


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "no headless browser: install chromium (Debian: apt-get install -y chromium) "
        "to render the report page"
    )


class Page(html.parser.HTMLParser):
    """The cards, images and sample transcripts of a rendered page."""

    def __init__(self):
        super().__init__()
        self.cards: list[str] = []
        self.images: list[str] = []
        self.transcripts = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "article" and "card" in classes:
            self.cards.append(attrs["data-env-id"])
        elif tag == "img":
            self.images.append(attrs["src"])
        elif tag == "details" and "transcript" in classes:
            self.transcripts += 1


def rendered(page: Path) -> Page:
    """The DOM as a headless Chromium built it from the file."""
    result = subprocess.run(
        [
            browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    parsed = Page()
    parsed.feed(result.stdout)
    return parsed


def test_the_rendered_page_has_every_card_and_every_figure(root, tmp_path):
    pytest.importorskip("faiss")
    from spadegym.memory import EnvironmentMemory, HashingEmbedder

    registry = Registry(root)
    ids = sorted(e.id for e in registry.list())
    with EnvironmentMemory(tmp_path / "memory", HashingEmbedder()) as memory:
        for env_id, plain, hint in (
            ("spade/IceMaze-v0", [0, 1], [1, 1]),
            ("spade/LockPick-v0", [0, 0], [0, 1]),
        ):
            memory.add(env_id, registry.get(env_id).source())
            memory.record_plays(env_id, plain, hint)
        page = build_report(tmp_path / "out", roots=[root], memory=memory, timing_sample=2)
    dom = rendered(page)
    assert sorted(dom.cards) == ids
    assert dom.transcripts == len(ids)
    assert sorted(dom.images) == sorted(
        f"img/{n}.png" for n in ("skills", "funnel", "check_times", "win_rate_regret")
    )
    for src in dom.images:
        assert (page.parent / src).read_bytes().startswith(PNG), src
    text = page.read_text(encoding="utf-8")
    assert "4 plays: win rate 0.50 without hint, 1.00 with it, regret 0.50" in text
    assert "seed 0, played by its solution(), outcome 1.0" in text
    assert "a two-player game: no solution to play" in text


def test_the_funnel_counts_each_stage():
    candidates = [
        {"status": "accepted", "turns": [{"ok": False}, {"ok": True}]},
        {"status": "duplicate", "turns": [{"ok": True}]},
        {"status": "rejected", "turns": [{"ok": False}]},
        {"status": "error", "turns": []},
    ]
    funnel = funnel_from_generation([{"candidates": candidates}])
    assert (funnel.generated, funnel.valid, funnel.novel, funnel.registered) == (4, 2, 1, 1)


def test_the_funnel_is_read_from_generate_logs(tmp_path):
    import json

    log = tmp_path / "run.jsonl"
    events = [
        {"event": "reply", "candidate": 0},
        {"event": "candidate", "candidate": 0, "status": "accepted", "turns": [{"ok": True}]},
        {"event": "candidate", "candidate": 1, "status": "rejected", "turns": [{"ok": False}]},
    ]
    log.write_text("\n".join(json.dumps(e) for e in events) + "\nnot json\n")
    funnel = funnel_from_logs([log])
    assert (funnel.generated, funnel.valid, funnel.novel, funnel.registered) == (2, 1, 1, 1)
    assert funnel_from_logs([tmp_path / "missing.jsonl"]) is None


def test_the_command_writes_the_page(root, tmp_path, capsys):
    out = tmp_path / "site"
    code = main(["report", "--root", str(root), "--out", str(out), "--timing-sample", "0"])
    assert code == 0
    assert capsys.readouterr().out.strip() == f"wrote {out / 'index.html'}"
    assert sorted(p.name for p in (out / "img").iterdir()) == ["funnel.png", "skills.png"]
    html_text = (out / "index.html").read_text(encoding="utf-8")
    assert "No play statistics yet" in html_text
    assert html_text.count('class="card"') == len(Registry(root).list())
    assert (
        main(
            [
                "report",
                "--root",
                str(root),
                "--out",
                str(out),
                "--memory",
                str(tmp_path / "nothing"),
            ]
        )
        == 2
    )
