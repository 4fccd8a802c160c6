"""The ``spadegym`` command line: one subcommand a module, each adding its own parsers.

Exit codes: 0 success, 1 a program was rejected or an operation failed, 2 a usage error.
An error no command expected is one line naming it; ``--debug`` shows its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

# Modules that contribute subcommands, each with ``add_parsers(subparsers)``. A module whose
# optional dependencies are missing is skipped, and its commands say so when called.
_COMMAND_MODULES = (
    "spadegym.cli.validate",
    "spadegym.cli.doctor",
    "spadegym.cli.registry",
    "spadegym.cli.memory",
    "spadegym.cli.generate",
    "spadegym.cli.demo",
    "spadegym.cli.eval",
    "spadegym.cli.report",
    "spadegym.cli.serve",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with the usage line
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every available subcommand."""
    from spadegym import __version__

    parser = _Parser(
        prog="spadegym",
        description="Validated, sandboxed environments written by LLMs, for RL post-training.",
    )
    parser.add_argument("--version", action="version", version=f"spadegym {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show the traceback of an unexpected error (it may come anywhere on the line)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("spadegym.cli"):
                continue  # a command module not present in this version
            raise
        module.add_parsers(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    ``--debug`` (anywhere on the line) shows the traceback of an unexpected error; without it,
    such an error is one line that names it and the flag.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`spadegym list | head`): not our error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # the last resort: one line, the traceback on request
        if debug:
            raise
        print(f"spadegym {args.command}: {_describe(exc)}", file=sys.stderr)
        return 1


def _describe(exc: BaseException) -> str:
    """One line for an error no command caught: what it is, and how to see more."""
    import errno

    from spadegym.errors import SpadegymError

    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        what = f"the disk is full (ENOSPC): {exc}"
    elif isinstance(exc, SpadegymError):
        what = str(exc)
    else:
        what = f"unexpected error: {type(exc).__name__}: {exc}"
    first = what.strip().splitlines()[0] if what.strip() else type(exc).__name__
    return f"{first[:500]} (rerun with --debug for the traceback)"


if __name__ == "__main__":
    sys.exit(main())
