from __future__ import annotations

import pytest
from devset import programs

from spadegym.memory.crossplay import CrossPlay, cross_play
from spadegym.memory.shipped_signatures import shipped_signature
from spadegym.memory.signature import compute_signature
from spadegym.sandbox import SandboxConfig, SandboxWorker

SOURCES = programs()
LIBRARY = {name: src for name, src in SOURCES.items() if name.startswith("lib/")}


@pytest.fixture(scope="module")
def library():
    """The library's precomputed signatures (one-player and two-player)."""
    import hashlib

    found = {}
    for name, src in LIBRARY.items():
        sig = shipped_signature(hashlib.sha256(src.encode()).hexdigest())
        assert sig is not None, f"{name} has no precomputed signature"
        found[name] = sig
    return found


def replay(candidate: str, neighbours: dict) -> tuple[dict, int]:
    """Cross-play in a fresh worker; also count the worker's exchanges."""
    worker = SandboxWorker(SandboxConfig(call_timeout=2.0, load_timeout=5.0))
    try:
        own = compute_signature(worker, SOURCES[candidate])
        exchanges = 0
        original = worker.exchange

        def counted(requests):
            nonlocal exchanges
            exchanges += 1
            return original(requests)

        worker.exchange = counted
        return cross_play(worker, SOURCES[candidate], own, neighbours), exchanges
    finally:
        worker.kill()


def test_same_game_rules():
    assert CrossPlay(5, 5).same_game  # all won, solutions equal to the candidate's own
    assert CrossPlay(5, 5, 3, 1).same_game  # another seed's solution wins at most half
    assert not CrossPlay(5, 5, 3, 2).same_game
    assert CrossPlay(5, 2, 3, 0).same_game  # partial: some instances coincide, no control won
    assert not CrossPlay(5, 2, 3, 1).same_game
    assert not CrossPlay(5, 1, 3, 0).same_game
    assert not CrossPlay(1, 0).same_game and not CrossPlay().same_game
    assert str(CrossPlay(5, 3, 3, 0)) == "3/5, 0/3 shifted" and str(CrossPlay()) == "-"


def test_a_rewrite_is_won_by_the_originals_solutions(library):
    found, _ = replay("rw_codepeg", library)
    assert found["lib/CodePegBreaker"].same_game
    assert found["lib/CodePegBreaker"].wins == 5
    assert [name for name, c in found.items() if c.wins] == ["lib/CodePegBreaker"]


def test_a_rewrite_with_reordered_draws_is_won_on_some_probes(library):
    found, _ = replay("rwd_pegleap", {"lib/PegLeap": library["lib/PegLeap"]})
    result = found["lib/PegLeap"]
    assert 2 <= result.wins < 5 and result.controls == 3 and result.control_wins == 0
    assert result.same_game


def test_two_player_games_compare_transcripts(library):
    duels = {n: s for n, s in library.items() if s.two_player}
    found, _ = replay("rw_nim", duels)
    assert found["lib/NimDuel"].same_game
    assert not any(c.wins for n, c in found.items() if n != "lib/NimDuel")
    # A puzzle's solutions are not compared with a duel's transcripts.
    assert (
        replay("rw_nim", {"lib/CodePegBreaker": library["lib/CodePegBreaker"]})[0][
            "lib/CodePegBreaker"
        ]
        == CrossPlay()
    )


def test_a_different_game_on_the_topic_wins_nothing(library):
    found, _ = replay("st_pegquery", library)
    assert not any(c.wins for c in found.values())


def test_replays_are_batched_whatever_the_number_of_neighbours(library):
    one = {"lib/TimberCutter": library["lib/TimberCutter"]}
    many = {n: s for n, s in library.items() if not s.two_player}
    _, few_exchanges = replay("st_logstack", one)
    found, exchanges = replay("st_logstack", many)
    assert sum(1 for c in found.values() if c.played) >= 4
    # One batched round: new, reset, steps (as long as the longest replay), close.
    assert exchanges <= few_exchanges + max(len(s.probes[0].solution or ()) for s in many.values())
