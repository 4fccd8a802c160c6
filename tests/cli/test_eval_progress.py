"""``spadegym eval`` says what it does: a reply-length notice and a counter while it plays."""

from __future__ import annotations

import io

import pytest
from sample_programs import example_registry

from spadegym.cli import main
from spadegym.cli.eval import SMALL_REPLY_TOKENS, default_reply_tokens
from spadegym.cli.eval_progress import ReplyProgress

pytestmark = pytest.mark.usefixtures("isolated_spadegym")


class Echo:
    name = "echo"

    def complete(self, messages, n=1):
        return ["\\boxed{0}"] * n


def test_the_counter_counts_episodes_finished_begun_and_replies():
    now = [0.0]
    stream = io.StringIO()
    progress = ReplyProgress(Echo(), 2, stream=stream, interval=10, clock=lambda: now[0])
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": "o"}]
    later = [*first, {"role": "assistant", "content": "r"}, {"role": "user", "content": "o2"}]
    assert progress.complete(first) == ["\\boxed{0}"]
    now[0] = 4
    progress.complete(first)
    progress.complete(later)
    now[0] = 75
    progress.complete(later)
    now[0] = 76
    progress.episode_done()  # an episode's end is always shown
    assert stream.getvalue().splitlines() == [
        "eval: episodes finished 0/2 (begun 1), model replies 1, 0m00s",
        "eval: episodes finished 0/2 (begun 2), model replies 4, 1m15s",
        "eval: episodes finished 1/2 (begun 2), model replies 4, 1m16s",
    ]
    assert progress.name == "echo"


def test_eval_with_smollm2_picks_a_short_reply_and_shows_progress(tmp_path, monkeypatch, capsys):
    import spadegym.llm

    root = example_registry(tmp_path / "registry")
    asked = {}

    def fake(spec, **settings):
        asked.update(settings, spec=spec)
        return Echo()

    monkeypatch.setattr(spadegym.llm, "llm_from_spec", fake)
    ids = ["spade/IceMaze-v0", "spade/SequenceStreak-v0"]
    code = main(["eval", "--llm", "smollm2", "--ids", *ids, "--root", str(root), "--no-memory"])
    assert code == 0
    assert asked["max_new_tokens"] == SMALL_REPLY_TOKENS == default_reply_tokens("smollm2")
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "spadegym eval: replies stop at 128 new tokens, enough to reason briefly and answer in "
        "\\boxed{}; --max-new-tokens N changes it"
    )
    assert err[1].startswith("eval: episodes finished 0/16 (begun 1), model replies 1, ")
    finished = [line for line in err if line.startswith("eval: episodes finished")]
    assert finished[-1].startswith("eval: episodes finished 16/16 (begun 16)")
    # and a line per environment
    assert [line.split(":")[0] for line in err if line.startswith("spade/")] == ids
    assert default_reply_tokens("gguf:x.gguf") == 256


def test_a_given_reply_length_and_quiet_say_nothing(tmp_path, monkeypatch, capsys):
    import spadegym.llm

    root = example_registry(tmp_path / "registry")
    asked = {}
    monkeypatch.setattr(spadegym.llm, "llm_from_spec", lambda spec, **s: asked.update(s) or Echo())
    args = ["eval", "--llm", "smollm2", "--ids", "IceMaze", "--root", str(root), "--no-memory"]
    assert main([*args, "--max-new-tokens", "40", "--quiet"]) == 0
    assert asked["max_new_tokens"] == 40 and capsys.readouterr().err == ""


def test_eval_without_memory_leaves_no_home(tmp_path, monkeypatch):
    import spadegym.llm

    root = example_registry(tmp_path / "registry")
    home = tmp_path / "home-not-yet"
    monkeypatch.setenv("SPADEGYM_HOME", str(home))
    monkeypatch.setattr(spadegym.llm, "llm_from_spec", lambda spec, **s: Echo())
    args = ["eval", "--llm", "smollm2", "--ids", "IceMaze", "--root", str(root), "--no-memory"]
    assert main([*args, "--quiet"]) == 0
    assert not home.exists()
