"""Wall time of the default `spadegym demo` (target: under two minutes on 2 cores).

Prints one JSON line: {"bench": "demo", "seconds": ..., "target_seconds": 120, "exit": code}.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time


def main() -> None:
    with tempfile.TemporaryDirectory() as workdir:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "spadegym.cli", "demo", "--workdir", f"{workdir}/demo"],
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "bench": "demo",
                "seconds": round(seconds, 1),
                "target_seconds": 120,
                "exit": done.returncode,
            }
        )
    )


if __name__ == "__main__":
    main()
