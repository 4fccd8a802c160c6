"""Program-produced text on the command line: escape sequences and lone surrogates (issue 13)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spadegym.cli import main
from spadegym.cli.output import dumps, terminal

ROOT = Path(__file__).resolve().parents[2]
ESCAPES = "\x1b[2J\x1b]0;pwned\x07\x9b31m\x08\r\x7f"
SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\x08\\x0d\\x7f"

# A valid program whose title and hint carry terminal escape sequences, written as escapes in
# the (ASCII) source; its observations must be printable (they live in a Text space). Lone
# surrogates come from programs that are rejected: Python refuses one in a class docstring
# when it builds the class (BROKEN, whose title is still in the report), and RAISING raises
# with one in its message.
HOSTILE = '''
import random

from spadegym.program import extract_boxed


class GlitchEnv:
    """Glitch \\x1b[31mred\\x1b[0m title.

    Guess the digit: answer with \\\\boxed{d}."""

    max_turns = 4

    def reset(self, seed=None, options=None):
        self.digit = random.Random(seed).randrange(10)
        return "Pick a digit in \\\\boxed{d}.", {}

    def step(self, action):
        guess = extract_boxed(action)
        if guess == str(self.digit):
            return "Right!", 1.0, True, False, {}
        return "Wrong, try again.", 0.0, False, False, {}

    def solution(self):
        return ["\\\\boxed{" + str(self.digit) + "}"]

    def hint(self):
        return "Count \\x1b[8mup\\x1b[0m."
'''

BROKEN = '''
class BrokenEnv:
    """Broken \\x1b[2J title \\ud800.

    Reply anything."""

    max_turns = 2

    def reset(self, seed=None, options=None):
        return "o", {}

    def step(self, action):
        return "o", 0.0, True, False, {}

    def solution(self):
        return ["x"]
'''

RAISING = '''
class RaisingEnv:
    """Raising.

    Reply anything."""

    max_turns = 2

    def reset(self, seed=None, options=None):
        raise ValueError("bad \\x1b]0;pwned\\x07 state \\ud800")

    def step(self, action):
        return "o", 0.0, True, False, {}

    def solution(self):
        return ["x"]
'''


def test_terminal_escapes_controls_and_surrogates_only():
    plain = "plain\ttext\nwith é, 中文 and emoji 🎲"
    assert terminal(plain) == plain
    assert terminal(ESCAPES) == SHOWN
    assert terminal("lone \ud800 and \udfff") == "lone \\ud800 and \\udfff"
    terminal("\ud800").encode("utf-8")  # never raises
    assert terminal(3) == "3"


def test_dumps_is_json_that_decodes_to_the_same_value_and_prints_safely():
    value = {"title": "x" + ESCAPES + "\ud800 é", "n": [1, 2.5, None]}
    text = dumps(value)
    assert json.loads(text) == value
    assert "\x1b" not in text and "\x9b" not in text and "\x7f" not in text
    text.encode("utf-8")
    assert "é" in text  # other text stays readable


@pytest.fixture
def files(tmp_path):
    paths = [tmp_path / "glitch.py", tmp_path / "broken.py", tmp_path / "raising.py"]
    for path, text in zip(paths, (HOSTILE, BROKEN, RAISING)):
        path.write_text(text)
    return paths


def test_validate_json_survives_lone_surrogates_in_a_subprocess(files):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "spadegym.cli", "validate", "--json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 1, done.stderr  # the broken programs are rejected
    reports = json.loads(done.stdout)
    assert [r["ok"] for r in reports] == [True, False, False]
    assert reports[0]["properties"]["title"] == "Glitch \x1b[31mred\x1b[0m title."
    assert reports[1]["properties"]["title"] == "Broken \x1b[2J title \ud800."
    failure = [c for c in reports[2]["checks"] if not c["passed"]][0]
    assert "bad \x1b]0;pwned\x07 state \ud800" in failure["message"]
    assert "\x1b" not in done.stdout and "\x9b" not in done.stdout


def test_validate_text_report_escapes_program_text(files, capsys):
    assert main(["validate", *map(str, files)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\ud800" not in out
    assert "bad \\x1b]0;pwned\\x07 state \\ud800" in out


@pytest.fixture
def registry_root(files, tmp_path):
    from spadegym.registry import Registry

    root = tmp_path / "registry"
    Registry(root).add(files[0].read_text())
    return root


def test_play_show_and_list_escape_program_text(registry_root, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\\boxed{x}\n:quit\n"))
    assert main(["play", "spade/Glitch-v0", "--root", str(registry_root), "--hint"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "\ud800" not in out
    assert "== Glitch \\x1b[31mred\\x1b[0m title." in out
    assert "Hint: Count \\x1b[8mup\\x1b[0m." in out
    for argv in (["show", "spade/Glitch-v0"], ["list"], ["list", "--markdown"], ["list", "--json"]):
        assert main([*argv, "--root", str(registry_root)]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x9b" not in out and "\ud800" not in out
        assert "Glitch" in out
    assert main(["list", "--json", "--root", str(registry_root)]) == 0
    titles = [row["title"] for row in json.loads(capsys.readouterr().out)]
    assert titles == ["Glitch \x1b[31mred\x1b[0m title."]


@pytest.mark.parametrize(
    "char",
    ["\u202e", "\u202a", "\u2066", "\u2069", "\u200f", "\u061c", "\u200b", "\u200d", "\u2060",
     "\ufeff", "\u2028", "\u2029", "\u180e"],
)  # fmt: skip
def test_bidirectional_and_zero_width_controls_are_escaped(char):
    """Issue 25: a line must read as what it holds (no reordering, nothing hidden)."""
    text = f"admin{char}gnp.exe"
    shown = terminal(text)
    assert char not in shown and f"\\u{ord(char):04x}" in shown
    encoded = dumps({"title": text})
    assert char not in encoded and json.loads(encoded) == {"title": text}
    assert terminal("نیم 日本 é") == "نیم 日本 é"  # other scripts stay as they are
