"""``spadegym validate FILE... [--json]``: check programs (or raw replies) against the contract."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from spadegym.cli.output import dumps, terminal


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``validate``."""
    parser = subparsers.add_parser(
        "validate",
        help="validate environment programs or raw LLM replies",
        description="Validate environment programs (or raw LLM replies holding one). Exit 0 if "
        "every file is valid, 1 if any is rejected, 2 on a usage error.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="program or reply files")
    parser.add_argument("--json", action="store_true", help="print one JSON array of reports")
    parser.add_argument("--workers", type=int, default=2, help="validations at once (default 2)")
    parser.add_argument(
        "--executor",
        default="local",
        help="where validations run: local (default), ray, or ray:<address>",
    )
    parser.add_argument("--seeds", type=int, default=5, help="seeds the solution must win on")
    parser.add_argument(
        "--difficulties",
        default="",
        help="comma-separated difficulties (1-5) the solution must also win at",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Validate the files and print the verdicts."""
    from spadegym.errors import ConfigError, SpadegymError
    from spadegym.validation import ValidationConfig, validate_many

    texts = []
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as handle:
                texts.append(handle.read())
        except (OSError, UnicodeDecodeError) as exc:
            print(f"spadegym validate: cannot read {path}: {exc}", file=sys.stderr)
            return 2
    try:
        difficulties = tuple(int(d) for d in args.difficulties.split(",") if d.strip())
        config = ValidationConfig(seeds=args.seeds, difficulties=difficulties)
    except (ValueError, ConfigError) as exc:
        print(f"spadegym validate: {exc}", file=sys.stderr)
        return 2
    if args.workers < 1:
        print("spadegym validate: --workers must be at least 1", file=sys.stderr)
        return 2

    def progress(index: int, report: object) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"  validated {os.path.basename(args.files[index])}", file=sys.stderr)

    try:
        reports = validate_many(
            texts, config, workers=args.workers, progress=progress, executor=args.executor
        )
    except SpadegymError as exc:
        print(f"spadegym validate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(dumps([{"file": path, **r.to_dict()} for path, r in zip(args.files, reports)]))
    else:
        print(terminal(format_table(args.files, reports)))
    return 0 if all(r.ok for r in reports) else 1


def format_table(files: list[str], reports: list) -> str:
    """A readable verdict per file, with each failing check's message."""
    lines = []
    width = max(len(f) for f in files)
    for path, report in zip(files, reports):
        mark = "valid   " if report.ok else "REJECTED"
        name = report.class_name or "-"
        lines.append(f"{mark}  {path.ljust(width)}  {name}  ({report.seconds:.2f} s)")
        for check in report.failures:
            wrapped = textwrap.fill(
                check.message, width=96, initial_indent="      ", subsequent_indent="      "
            )
            lines.append(f"    {check.name}:\n{wrapped}")
        if report.not_run and not report.ok:
            lines.append(f"    not run: {', '.join(report.not_run)}")
    valid = sum(r.ok for r in reports)
    lines.append(f"\n{valid} valid, {len(reports) - valid} rejected")
    return "\n".join(lines)
