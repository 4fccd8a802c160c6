from __future__ import annotations

import json

import pytest
from devset import programs

from spadegym.errors import ConfigError, ProgramError
from spadegym.memory.signature import (
    MAX_SOLUTION_CHARS,
    PROBES,
    Signature,
    action_template,
    compute_signature,
    number_overlap,
    numbers_of,
    observation_alignment,
    scripted_move,
    words_of,
)
from spadegym.sandbox import InProcessWorker, SandboxConfig, SandboxWorker

SOURCES = programs()


@pytest.fixture(scope="module")
def worker():
    worker = SandboxWorker(SandboxConfig(call_timeout=2.0, load_timeout=5.0))
    yield worker
    worker.kill()


def fresh_signature(worker, *args):
    """``compute_signature`` in a fresh process of ``worker`` (a worker serves one program)."""
    worker.kill()
    return compute_signature(worker, *args)


def test_signature_of_a_puzzle(worker):
    sig = fresh_signature(worker, SOURCES["lib/CodePegBreaker"])
    assert not sig.two_player and len(sig.probes) == len(PROBES)
    assert [p.probe for p in sig.probes] == list(PROBES)
    for record in sig.probes:
        assert record.solution and record.solution[-1].startswith("\\boxed{")
        assert record.numbers and record.words.startswith("turn")
        assert record.replies and all(r == (0.0, False) for r in record.replies)
        assert record.error is None
    assert sig.templates == {"\\a{a}"}
    assert len(sig.to_bytes()) < 2000  # a few KB at most, compressed


def test_signature_is_deterministic_and_round_trips(worker):
    a = fresh_signature(worker, SOURCES["lib/RiverSourceTrace"])
    b = compute_signature(
        InProcessWorker(SandboxConfig(isolation="none")), SOURCES["lib/RiverSourceTrace"]
    )
    assert a == b
    assert Signature.from_bytes(a.to_bytes()) == a
    assert Signature.from_json(json.loads(json.dumps(a.to_json()))) == a


def test_two_player_signature_records_a_scripted_transcript(worker):
    sig = fresh_signature(worker, SOURCES["lib/ConnectFourDuel"])
    assert sig.two_player
    for record in sig.probes:
        assert record.solution is None
        assert len(record.script) == len(record.transcript) >= 2
        assert all(move.startswith("\\boxed{") for move in record.script)
        reward, terminated, player, outcome = record.transcript[0]
        assert player in (0, 1) and not terminated


def test_signature_of_a_failing_program_is_an_error(worker):
    with pytest.raises(ProgramError):
        fresh_signature(worker, "class BrokenEnv:\n    max_turns = 'x'\n    import os\n")


def test_old_signature_versions_are_refused():
    with pytest.raises(ConfigError, match="recompute it"):
        Signature.from_json({"version": 0, "two_player": False, "probes": []})


def test_long_solutions_are_not_recorded(worker):
    long = SOURCES["lib/TimberCutter"].replace(
        'return moves + ["\\\\boxed{done}"]',
        f'return moves + ["\\\\boxed{{done}}" + " " * {MAX_SOLUTION_CHARS}]',
    )
    assert long != SOURCES["lib/TimberCutter"]
    sig = fresh_signature(worker, long)
    assert all(p.solution is None for p in sig.probes)


def test_normalisers():
    assert numbers_of("Turn 007 of 10: pay 2.50, owe -3") == ("7", "10", "2.5", "-3")
    assert words_of("Hello,\n  World!\tTurn 3") == "hello world turn"
    assert action_template("\\boxed{take 12 3}") == "\\a{a0}"
    assert action_template("\\boxed{R G B Y}") == action_template("\\boxed{RGBY}") == "\\a{a}"
    assert number_overlap(["1", "2", "2"], ["2", "2", "3"]) == 0.5
    assert number_overlap([], []) is None


def test_scripted_moves_walk_through_the_offered_moves():
    obs = "Board...\nLegal moves: a1, b2 (any), c3\nAnswer with one cell, e.g. \\boxed{a1}."
    assert [scripted_move(obs, t) for t in range(3)] == [
        "\\boxed{a1}",
        "\\boxed{b2}",
        "\\boxed{c3}",
    ]
    assert scripted_move("Answer with \\boxed{take H N} or \\boxed{3}.", 0) == "\\boxed{3}"
    assert scripted_move("Nothing offered.", 5) == "\\boxed{1}"


def test_observation_alignment_compares_probe_for_probe(worker):
    original = fresh_signature(worker, SOURCES["lib/GearDialSync"])
    rewrite = fresh_signature(worker, SOURCES["rw_geardial"])
    aligned, shifted = observation_alignment(rewrite, original)
    assert aligned > 0.9 and shifted < 0.7


def test_every_shipped_program_has_its_signature_precomputed(worker):
    import hashlib

    from spadegym.memory.shipped_signatures import shipped_signature

    library = {n: s for n, s in SOURCES.items() if n.startswith("lib/")}
    assert len(library) == 76
    missing = [
        n
        for n, s in library.items()
        if shipped_signature(hashlib.sha256(s.encode()).hexdigest()) is None
    ]
    assert not missing, (
        f"run `python -m spadegym.memory.shipped_signatures` after changing {missing}"
    )
    # The file holds what the sandbox computes now (a few programs of each kind).
    for name in ("lib/NimDuel", "lib/HomeHub", "lib/SequenceOracle"):
        sha = hashlib.sha256(library[name].encode()).hexdigest()
        assert shipped_signature(sha) == fresh_signature(worker, library[name])
