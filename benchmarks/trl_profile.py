"""Where ``bench_trl``'s training time goes, per trainer, from a py-spy profile of one run.

``bench_trl`` prints each trainer's samples per second; this script says what the seconds
were spent on. Record the run with py-spy's raw (collapsed-stack) output, then read it:

    py-spy record -r 5 -f raw -o trl.prof -- python benchmarks/bench_trl.py [key=value ...]
    python benchmarks/trl_profile.py trl.prof --rate 5 [--samples 240]

Each sample's stack is given to the trainer whose training function it runs under
(``train_spadegym`` or ``train_trl``; evaluation and loading outside them are left out), and
to the first of these found from the innermost frame out: the optimizer step, the backward
pass, generation (sampling replies), the forward pass that scores tokens for the loss,
environment steps, loading. Prints one JSON line per trainer: seconds per part and, with
``--samples``, seconds per training sample.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

TRAINERS = {"train_spadegym": "spadegym_train", "train_trl": "trl"}
PARTS = (  # checked from the innermost frame out; the first part that matches wins
    ("optimizer", re.compile(r"torch/optim/|clip_grad")),
    ("backward", re.compile(r"torch/autograd/|\.backward \(|_backward_tile")),
    ("generation", re.compile(r"\bgenerate \(|GenerationMixin|_sample \(")),
    (
        "loss_forward",
        re.compile(r"spadegym_train/loss\.py|_get_per_token_logps|compute_loss|_forward_tile"),
    ),
    ("environment", re.compile(r"spadegym/(sandbox|vector)/|RolloutEnvironment|ProgramEnv")),
    ("loading", re.compile(r"from_pretrained|load_policy|load_model|_find_and_load")),
)


def part_of(frames: list[str]) -> str:
    """The part of training a stack belongs to: the first match from the innermost frame out."""
    for frame in reversed(frames):
        for name, pattern in PARTS:
            if pattern.search(frame):
                return name
    return "other"


def read_profile(path: Path) -> dict[str, Counter]:
    """Sample counts per trainer and part, from py-spy's raw output (``stack count`` lines)."""
    counts: dict[str, Counter] = {name: Counter() for name in TRAINERS.values()}
    for line in path.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        trainer = next(
            (name for marker, name in TRAINERS.items() if any(marker in f for f in frames)), None
        )
        if trainer is not None:
            counts[trainer][part_of(frames)] += int(count)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=Path, help="py-spy record -f raw output")
    parser.add_argument("--rate", type=float, default=100.0, help="py-spy's samples per second")
    parser.add_argument("--samples", type=int, default=None, help="training samples per trainer")
    args = parser.parse_args()
    if not args.profile.is_file():
        raise SystemExit(f"{args.profile}: no such file; record one with py-spy (see --help).")
    for trainer, counter in read_profile(args.profile).items():
        seconds = {part: round(n / args.rate, 1) for part, n in counter.most_common()}
        line = {"benchmark": "trl_profile", "trainer": trainer, "seconds": seconds}
        line["total_seconds"] = round(sum(counter.values()) / args.rate, 1)
        if args.samples:
            line["seconds_per_sample"] = {
                part: round(s / args.samples, 3) for part, s in seconds.items()
            }
        print(json.dumps(line))


if __name__ == "__main__":
    main()
