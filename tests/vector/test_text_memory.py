"""text_memory: an environment's text observations in AsyncVectorEnv's shared memory."""

from __future__ import annotations

import copy
import multiprocessing
import subprocess
import sys

import pytest
from gymnasium.vector.utils import shared_memory

from spadegym.env import observation_space
from spadegym.vector.text_memory import SharedTexts


def test_shared_texts_round_trip_any_printable_text():
    space = observation_space()
    memory = shared_memory.create_shared_memory(space, n=2, ctx=multiprocessing)
    view = shared_memory.read_from_shared_memory(space, memory, n=2)
    assert isinstance(view, SharedTexts) and view == ("", "")
    text = "Größe: 3 × 4 → 12 ✓\nnext line\t" + "x" * (space.max_length - 30)
    shared_memory.write_to_shared_memory(space, 1, text, memory)
    shared_memory.write_to_shared_memory(space, 0, "short", memory)
    assert view[1] == text and view[0] == "short"
    snapshot = copy.deepcopy(view)
    shared_memory.write_to_shared_memory(space, 0, "changed", memory)
    assert snapshot == ("short", text) and view[0] == "changed"
    with pytest.raises(ValueError, match="does not fit a space of at most 8192"):
        shared_memory.write_to_shared_memory(space, 0, "y" * 8193, memory)


def test_importing_the_environment_alone_wires_the_layout():
    # The registration lives in spadegym/__init__.py (env does not import up into vector):
    # any import of spadegym.env runs it first, in a fresh process too.
    script = (
        "import multiprocessing\n"
        "from gymnasium.vector.utils import shared_memory\n"
        "from spadegym.env import observation_space\n"
        "space = observation_space()\n"
        "memory = shared_memory.create_shared_memory(space, n=1, ctx=multiprocessing)\n"
        "print(type(shared_memory.read_from_shared_memory(space, memory, n=1)).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "SharedTexts"
