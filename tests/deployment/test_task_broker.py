"""The task broker on Debian's redis-server (xorventa/task_broker.py): a task handed out and never
acknowledged (its worker died) is handed out again after `retry` seconds; an acknowledged one is not;
one that is never acknowledged goes to the dead list after `max_attempts` deliveries.

django-q2's own Redis broker fails the first two: its dequeue is a BLPOP and its acknowledge does
nothing, so the task of a killed worker is gone (swap ReliableRedis for
django_q.brokers.redis_broker.Redis below to see it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django_q.conf import Conf

from tests.deployment.services import redis_server
from xorventa.task_broker import ReliableRedis


@pytest.fixture
def broker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReliableRedis]:
    with redis_server(tmp_path / "redis") as url:
        monkeypatch.setattr(Conf, "REDIS", url)
        monkeypatch.setattr(Conf, "RETRY", 1)
        monkeypatch.setattr(Conf, "MAX_ATTEMPTS", 3)
        monkeypatch.setattr(Conf, "POLL", 0.05)
        monkeypatch.setattr(Conf, "DJANGO_REDIS", None)
        yield ReliableRedis(list_key="probe")


def _take(broker: ReliableRedis, wait: float = 3.0) -> bytes | None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        got = broker.dequeue()
        if got:
            return bytes(got[0][1])
    return None


def test_an_unacknowledged_task_is_handed_out_again_after_retry(broker: ReliableRedis):
    broker.enqueue("crawl")
    assert _take(broker) == b"crawl"
    assert broker.queue_size() == 0 and broker.lock_size() == 1
    assert _take(broker, wait=0.5) is None  # leased: no one else gets it before retry
    assert _take(broker) == b"crawl"  # the first worker died: a second one gets it


def test_an_acknowledged_task_is_not_handed_out_again(broker: ReliableRedis):
    broker.enqueue("upload")
    ack_id = broker.dequeue()[0][0]  # type: ignore[index]
    broker.acknowledge(ack_id)
    assert broker.lock_size() == 0
    assert _take(broker, wait=2.5) is None


def test_a_task_that_is_never_acknowledged_ends_in_the_dead_list(broker: ReliableRedis):
    broker.enqueue("poison")
    for _ in range(3):
        assert _take(broker) == b"poison"
    assert _take(broker, wait=2.5) is None
    assert broker.connection.lrange(broker.dead_key, 0, -1) == [b"poison"]
