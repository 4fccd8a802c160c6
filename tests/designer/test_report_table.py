"""GenerationReport.table: both skills, labelled, and reasons kept whole."""

from __future__ import annotations

from types import SimpleNamespace

from spadegym.designer.candidates import Candidate, DesignTurn, GenerationReport
from spadegym.validation.verdict import ProgramProperties

REASON = (
    "solvable: playing solution() does not win seed 3 (outcome 0.0 after 4 turns); make "
    "solution() return the replies that win, in order, from the state right after reset."
)


def test_the_table_shows_the_asked_and_the_programs_skill_and_whole_reasons():
    own = SimpleNamespace(properties=ProgramProperties(skill="Spatial_Reasoning"))
    accepted = Candidate(0, "Mathematical_Reasoning", "puzzle", 3, "doc", "corpus")
    accepted.status, accepted.env_id = "accepted", "spade/IceMaze-v0"
    accepted.turns = [DesignTurn("design", "c0000-t0", [], "reply", report=own)]
    rejected = Candidate(1, "Logical_Deduction", "puzzle", 3, "doc", "corpus")
    rejected.status, rejected.reason = "rejected", REASON
    table = GenerationReport([accepted, rejected], "m", "run.jsonl").table()
    lines = table.splitlines()
    assert lines[0].split() == ["#", "status", "asked", "skill", "program", "skill", "rep"] + [
        "id",
        "/",
        "reason",
    ]
    assert lines[1].split()[:4] == ["0", "accepted", "Mathematical_Reasoning", "Spatial_Reasoning"]
    assert lines[2].split()[:4] == ["1", "rejected", "Logical_Deduction", "-"]
    assert " ".join(table.split()).count(" ".join(REASON.split())) == 1  # not cut off
    assert all(len(line) <= 100 for line in lines)
