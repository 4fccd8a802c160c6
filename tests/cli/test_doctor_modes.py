"""``spadegym doctor`` tries each filesystem mode with a worker of its own (issue 25)."""

from __future__ import annotations

import json

from spadegym.cli import main
from spadegym.sandbox import SandboxConfig, SandboxWorker, filesystem


def test_doctor_says_which_filesystem_modes_work_here(capsys):
    main(["doctor", "--json"])
    modes = json.loads(capsys.readouterr().out)["filesystem_modes"]
    assert set(modes) == {"landlock", "mount"}
    for probe in modes.values():
        assert type(probe["works"]) is bool and probe["detail"]
    if filesystem.landlock_abi() < 1:
        assert modes["landlock"]["works"] is False
    for mode, probe in modes.items():
        worker = SandboxWorker(SandboxConfig(filesystem=mode, allow_weak_sandbox=True))
        try:
            worker.start()
            assert probe["works"] == worker.layers["filesystem"]["active"]
        finally:
            worker.close()


def test_doctor_prints_the_modes(capsys):
    main(["doctor"])
    shown = capsys.readouterr().out
    assert "Filesystem modes (SandboxConfig.filesystem)" in shown
    assert "\n  landlock    " in shown and "\n  mount       " in shown
