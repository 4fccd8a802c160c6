"""``exchange_then``: a batched exchange whose answers may ask for a second request at once.

A batch step that ends episodes needs a second exchange: the finished instances' resets. Sent
as a second batch, that round runs on the few workers whose instances finished while the other
cores idle, and the host waits twice for the slowest worker. A heterogeneous batch (one worker
per program) suffers most: one program whose episodes end at almost every step holds the whole
batch for its resets. ``exchange_then`` reads the workers in the order they answer and sends
each its follow-up requests as soon as its answers are read, so its resets run while the host
reads the other workers' answers and while the other workers still step.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from spadegym.sandbox.client import CORES, Answer, SandboxWorker, Worker

__all__ = ["exchange_then"]


def _answer_fd(worker: Worker) -> int | None:
    """The pipe a running worker process answers on (None for a worker in the host)."""
    proc = getattr(worker, "_proc", None)
    return proc.stdout.fileno() if proc is not None and proc.stdout is not None else None


def exchange_then(
    items: Sequence[tuple[Worker, dict]], then: Callable[[int, Answer], dict | None]
) -> tuple[list[Answer], dict[int, Answer]]:
    """Send every request, then read each worker's answers and send its follow-ups at once.

    Like ``exchange_many``, every worker gets its requests (in one message) before any answer
    is read. The workers are read in the order they start answering (the first to answer is
    read first), each under its own deadlines. ``then(position, answer)`` sees each answer as
    soon as its worker's are read and may return a follow-up request for the same worker (for
    the same instance), which goes out at once; the follow-ups' answers are read after every
    first answer.

    A follow-up for a worker that restarted while answering is not sent (its instance ids
    named the old process): its position is missing from the follow-up answers, and the caller
    deals with it the ordinary way. If ``then`` raises, every answer still in a pipe is read
    (a later exchange must not read it as its own) and the exception is raised after.

    Args:
        items: ``(worker, request)`` pairs.
        then: ``(position, answer) -> follow-up request or None``, called once per item.

    Returns:
        The answers in the order of ``items``, and the follow-ups' answers by position.
    """
    answers: list[Answer | None] = [None] * len(items)
    groups: dict[int, list[int]] = {}
    for position, (worker, _) in enumerate(items):
        groups.setdefault(id(worker), []).append(position)
    sent = []
    for positions in groups.values():
        worker = items[positions[0]][0]
        requests = [items[p][1] for p in positions]
        generation = worker.generation
        failed = worker.send(requests) if isinstance(worker, SandboxWorker) else None
        sent.append((worker, positions, requests, failed, generation, time.monotonic()))
    spin = len(sent) < CORES
    followed = []
    raised: BaseException | None = None

    def read(worker, positions, requests, failed, generation, sent_at) -> None:
        nonlocal raised
        if failed is not None:
            replies = failed
        elif isinstance(worker, SandboxWorker):  # deadlines count from the send
            replies = worker.receive(requests, spin=spin, since=sent_at)
        else:
            replies = worker.exchange(requests)
        followups = []
        for position, reply in zip(positions, replies, strict=True):
            answers[position] = reply
            if raised is not None:
                continue
            try:
                request = then(position, reply)
            except BaseException as exc:  # raised once the pipes are drained
                raised = exc
                continue
            if request is not None:
                followups.append((position, request))
        if not followups or worker.generation != generation:
            return
        requests = [request for _, request in followups]
        if isinstance(worker, SandboxWorker):
            replies = worker.send(requests)  # None when sent: the answers are read below
        else:
            replies = worker.exchange(requests)  # in the host: nothing runs meanwhile anyway
        followed.append((worker, followups, requests, replies, time.monotonic()))

    for group in _in_answer_order(sent):
        read(*group)
    follow: dict[int, Answer] = {}
    for worker, followups, requests, replies, sent_at in followed:
        if replies is None:
            replies = worker.receive(requests, spin=spin, since=sent_at)
        for (position, _), reply in zip(followups, replies, strict=True):
            follow[position] = reply
    if raised is not None:
        raise raised
    return answers, follow  # type: ignore[return-value]


def _in_answer_order(sent: list[tuple]) -> Iterator[tuple]:
    """Yield the sent groups, those whose worker has started answering first.

    Groups that need no waiting (a failed send, a worker in the host) come first. When no
    worker answers within the shortest of their deadlines, the rest come in order, and each
    worker's own read enforces its deadlines (killing a worker that does not answer).
    """
    waiting: dict[int, tuple[Any, ...]] = {}
    for group in sent:
        fd = _answer_fd(group[0]) if group[3] is None else None
        if fd is None:
            yield group
        else:
            waiting[fd] = group
    if len(waiting) <= 1:
        yield from waiting.values()
        return
    poll = select.poll()
    for fd in waiting:
        poll.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    limit = min(_deadline(group) for group in waiting.values())
    until = time.monotonic() + limit
    while waiting:
        remaining = until - time.monotonic()
        ready = poll.poll(max(1, int(remaining * 1000))) if remaining > 0 else []
        if not ready:
            break
        for fd, _ in ready:
            popped: tuple[Any, ...] | None = waiting.pop(fd, None)
            if popped is not None:
                poll.unregister(fd)
                yield popped
    yield from waiting.values()


def _deadline(group: tuple) -> float:
    """The longest a group's first answer may take: its slowest request's hard deadline."""
    worker, _, requests, _, _, _ = group
    config = worker.config
    return max(config.deadline(r.get("op")) for r in requests) + config.kill_grace
