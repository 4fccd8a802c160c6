"""``exchange_then``: a batched exchange whose answers may ask for a second request at once.

A batch step that ends episodes needs a second exchange: the finished instances' resets. Sent
as a second batch, that round runs on the few workers whose instances finished while the other
cores idle, and the host waits twice for the slowest worker. A heterogeneous batch (one worker
per program) suffers most: one program whose episodes end at almost every step holds the whole
batch for its resets. ``exchange_then`` sends each worker its follow-up requests as soon as that
worker's answers are read, so its resets run while the host reads the other workers' answers
and while the other workers still step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spadegym.sandbox.client import CORES, Answer, SandboxWorker, Worker

__all__ = ["exchange_then"]


def exchange_then(
    items: Sequence[tuple[Worker, dict]], then: Callable[[int, Answer], dict | None]
) -> tuple[list[Answer], dict[int, Answer]]:
    """Send every request, then read each worker's answers and send its follow-ups at once.

    Like ``exchange_many``, every worker gets its requests (in one message) before any answer
    is read. ``then(position, answer)`` sees each answer as soon as its worker's are read and
    may return a follow-up request for the same worker (for the same instance), which goes out
    at once; the follow-ups' answers are read after every first answer.

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
        sent.append((worker, positions, requests, failed, generation))
    spin = len(sent) < CORES
    followed = []
    raised: BaseException | None = None
    for worker, positions, requests, failed, generation in sent:
        if failed is not None:
            replies = failed
        elif isinstance(worker, SandboxWorker):
            replies = worker.receive(requests, spin=spin)
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
            continue
        requests = [request for _, request in followups]
        if isinstance(worker, SandboxWorker):
            replies = worker.send(requests)  # None when sent: the answers are read below
        else:
            replies = worker.exchange(requests)  # in the host: nothing runs meanwhile anyway
        followed.append((worker, followups, requests, replies))
    follow: dict[int, Answer] = {}
    for worker, followups, requests, replies in followed:
        if replies is None:
            replies = worker.receive(requests, spin=spin)
        for (position, _), reply in zip(followups, replies, strict=True):
            follow[position] = reply
    if raised is not None:
        raise raised
    return answers, follow  # type: ignore[return-value]
