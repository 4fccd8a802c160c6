"""Bad input to the Python API: a spadegym error that names the file or the value."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium
import pytest

from spadegym import ProgramEnv
from spadegym.env import SourceTypeError
from spadegym.errors import ConfigError, SpadegymError

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "examples" / "good" / "lock_pick.py"


@pytest.mark.parametrize("kind", ["missing", "folder", "binary", "latin-1", "fifo"])
def test_program_env_of_a_bad_file_names_it(tmp_path, kind):
    path = tmp_path / "env.py"
    expected = {
        "missing": f"{path}: no such program file.",
        "folder": f"{path} is a folder; give the program file (a .py file).",
        "binary": f"{path} is not UTF-8 text (byte 0x80 at offset 0); save it as UTF-8.",
        "latin-1": f"{path} is not UTF-8 text (byte 0xe9 at offset 5); save it as UTF-8.",
        "fifo": f"{path} is not a regular file (a FIFO, socket or device); give a program file.",
    }[kind]
    if kind == "folder":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(b"\x80\x00\x01binary")
    elif kind == "latin-1":
        path.write_bytes("# caf\xe9\n".encode("latin-1"))
    elif kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(ConfigError) as caught:
        ProgramEnv(path=path, isolation="none")
    assert str(caught.value) == expected


def test_program_env_of_bytes_is_a_type_error():
    with pytest.raises(SourceTypeError, match="takes the program as str; got bytes") as caught:
        ProgramEnv(LOCK.read_bytes(), isolation="none")
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, SpadegymError)


@pytest.mark.parametrize("difficulty", [0, 6, "x", 2.5, True])
def test_reset_refuses_a_difficulty_outside_the_range(difficulty):
    env = ProgramEnv(path=LOCK, isolation="none")
    try:
        with pytest.raises(ConfigError, match=r"difficulties are ints in 1\.\.5"):
            env.reset(seed=0, options={"difficulty": difficulty})
        env.reset(seed=0, options={"difficulty": 3})  # the env is still usable
    finally:
        env.close()
    with pytest.raises(SpadegymError, match=r"difficulties are ints in 1\.\.5"):
        ProgramEnv(path=LOCK, isolation="none", difficulty=difficulty)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_reset_refuses_a_seed_that_is_not_an_int_from_zero(seed):
    env = ProgramEnv(path=LOCK, isolation="none")
    try:
        with pytest.raises(ConfigError, match="a seed is an int >= 0"):
            env.reset(seed=seed)
    finally:
        env.close()


def test_one_seed_rule_for_make_and_make_vec(isolated_spadegym, tmp_path):
    from spadegym.registry import Registry
    from spadegym.validation import validate

    source = LOCK.read_text()
    env_id = Registry(tmp_path / "root").add(source, validate(source))
    env = gymnasium.make(env_id, isolation="none")
    vec = gymnasium.make_vec(env_id, 2, isolation="none")
    try:
        for reset in (env.reset, vec.reset):
            with pytest.raises(ConfigError, match=r"seed=-1: a seed is an int >= 0"):
                reset(seed=-1)
        with pytest.raises(ConfigError, match=r"seed=-2: a seed is an int >= 0"):
            vec.reset(seed=[0, -2])
        with pytest.raises(ConfigError, match=r"options\['difficulty'\]=0"):
            vec.reset(seed=0, options={"difficulty": 0})
        assert len(vec.reset(seed=0)[0]) == 2
    finally:
        env.close()
        vec.close()
