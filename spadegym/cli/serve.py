"""``spadegym serve``: registered environments over OpenEnv's protocol, one instance a session."""

from __future__ import annotations

import argparse
import ipaddress
import sys


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve``."""
    from spadegym.integrations.serve_config import SERVE_IDLE_TIMEOUT, SERVE_MAX_SESSIONS

    parser = subparsers.add_parser(
        "serve",
        help="serve environments over OpenEnv's protocol (WebSocket sessions)",
        description="Serve registered environments to OpenEnv clients: every WebSocket "
        "session (/ws) gets its own sandboxed instance, released when the session "
        "closes, drops, or stays idle past --idle-timeout. Clients reset with "
        "env_id=<id> (optional when one id is served), seed=, difficulty=, hint=, then "
        "step with {'reply': ...}. Needs pip install 'spadegym[integrations]'.",
    )
    parser.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="environment ids to serve (default: every registered one)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=SERVE_MAX_SESSIONS,
        metavar="N",
        help=f"sessions alive at once; one more is refused (default {SERVE_MAX_SESSIONS})",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=SERVE_IDLE_TIMEOUT,
        metavar="SECONDS",
        help=f"close a session after this long without a message (default {SERVE_IDLE_TIMEOUT:g})",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="sandbox workers shared by the sessions (default: one per core, up to 4)",
    )
    parser.set_defaults(func=run)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from spadegym.errors import ConfigError, SpadegymError
    from spadegym.integrations.programs import resolve
    from spadegym.integrations.serve_config import ServeConfig

    if not 0 <= args.port <= 65535:
        print(f"spadegym serve: --port {args.port} is not a port (0..65535).", file=sys.stderr)
        return 2
    try:  # the settings and ids first: loading OpenEnv takes seconds
        config = ServeConfig(
            ids=args.ids,
            max_sessions=args.max_sessions,
            idle_timeout=args.idle_timeout,
            workers=args.workers,
        )
        if args.ids:
            resolve(args.ids)
    except ConfigError as exc:
        print(f"spadegym serve: {exc}", file=sys.stderr)
        return 2
    except SpadegymError as exc:
        print(f"spadegym serve: {exc}", file=sys.stderr)
        return 1
    try:
        from spadegym.integrations import openenv
    except ImportError as exc:
        print(
            f"spadegym serve: OpenEnv is not installed ({exc}); pip install "
            "'spadegym[integrations]'.",
            file=sys.stderr,
        )
        return 1
    try:
        app = openenv.create_app(config=config)
    except SpadegymError as exc:
        print(f"spadegym serve: {exc}", file=sys.stderr)
        return 1
    served = app.state.spadegym.programs
    if not _loopback(args.host):
        print(
            f"spadegym serve: warning: listening on {args.host}, not only on this machine; "
            "anyone who can reach the port can open sessions (the programs stay sandboxed).",
            file=sys.stderr,
        )
    more = f" and {len(served) - 5} more" if len(served) > 5 else ""
    names = ", ".join(list(served)[:5]) + more
    print(
        f"spadegym serve: {len(served)} environment(s) ({names}) at "
        f"http://{args.host}:{args.port} (OpenEnv: WebSocket /ws, HTTP /reset, /schema, /docs). "
        "Ctrl-C stops.",
        flush=True,
    )
    import uvicorn

    server = uvicorn.Server(openenv.uvicorn_config(app, args.host, args.port))
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn stops cleanly, then re-raises the signal it caught
        pass
    if not server.started:
        print(f"spadegym serve: could not listen on {args.host}:{args.port}.", file=sys.stderr)
        return 1
    return 0
