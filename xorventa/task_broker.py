"""django-q2's Redis broker with acknowledgements, so a task survives the death of the worker running it.

django-q2's own Redis broker takes a task with BLPOP and its ``acknowledge`` does nothing: a worker
killed in the middle of a crawl (a deploy, an out-of-memory kill, a lost machine) loses the task for
good, whatever ``retry`` says (that setting only works with brokers that guarantee delivery, such as
the ORM one). This broker keeps every task it hands out in a lease set until the cluster acknowledges
it; a lease older than ``retry`` seconds goes back to the head of the queue for any worker. Each
redelivery is counted and a task delivered more than ``max_attempts`` times (one that kills every
worker that runs it) is moved to a dead list instead of looping. The jobs themselves are idempotent
(an ingestion job's new attempt supersedes the old one), so a task delivered twice is harmless.

Hand-written because django-q2 ships no reliable Redis broker; the three Lua scripts keep each step
atomic between several clusters. Times are the Redis server's clock, one clock for every machine.
"""

from __future__ import annotations

import time
from typing import Any

from django_q.brokers.redis_broker import Redis
from django_q.conf import Conf, logger

# KEYS: queue, leases, deliveries, dead. ARGV: retry seconds, max deliveries (0: unlimited).
# Expired leases go back to the head of the queue (they are the oldest work), then one task is taken.
_TAKE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local retry = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - retry, 'LIMIT', 0, 100)
for _, task in ipairs(expired) do
  redis.call('ZREM', KEYS[2], task)
  local count = redis.call('HINCRBY', KEYS[3], task, 1)
  if limit > 0 and count >= limit then
    redis.call('HDEL', KEYS[3], task)
    redis.call('RPUSH', KEYS[4], task)
  else
    redis.call('LPUSH', KEYS[1], task)
  end
end
local task = redis.call('LPOP', KEYS[1])
if task then
  redis.call('ZADD', KEYS[2], now, task)
end
return {task or false, #expired}
"""
# KEYS: leases, deliveries. ARGV: the task as it was handed out.
_ACK = """
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
"""


class ReliableRedis(Redis):
    """Q_CLUSTER["broker_class"] with Q_CLUSTER["redis"] = REDIS_URL (xorventa/settings.py)."""

    def __init__(self, list_key: str | None = None) -> None:
        super().__init__(list_key=list_key)
        self.lease_key = f"{self.list_key}:leases"
        self.deliveries_key = f"{self.list_key}:deliveries"
        self.dead_key = f"{self.list_key}:dead"
        self._take = self.connection.register_script(_TAKE)
        self._ack = self.connection.register_script(_ACK)

    def _keys(self) -> list[str]:
        return [self.list_key, self.lease_key, self.deliveries_key, self.dead_key]

    def dequeue(self) -> list[tuple[Any, Any]] | None:
        task, returned = self._take(keys=self._keys(), args=[int(Conf.RETRY), int(Conf.MAX_ATTEMPTS or 0)])
        if returned:
            logger.warning(
                "%s unacknowledged task(s) older than %s s given back to the queue", returned, Conf.RETRY
            )
        if task:
            return [(task, task)]  # the ack id is the task itself: unique (it carries its signed id)
        time.sleep(Conf.POLL)  # as the ORM broker does: the pusher calls again at once
        return None

    def acknowledge(self, task_id: Any) -> None:
        self._ack(keys=[self.lease_key, self.deliveries_key], args=[task_id])

    def fail(self, task_id: Any) -> None:  # a task that cannot be unpacked: drop it, never redeliver
        self.acknowledge(task_id)

    def delete(self, task_id: Any) -> None:
        self.acknowledge(task_id)

    def lock_size(self) -> int:
        return int(self.connection.zcard(self.lease_key))

    def delete_queue(self) -> int:
        return int(self.connection.delete(*self._keys()))

    def purge_queue(self) -> Any:
        self.connection.delete(self.lease_key, self.deliveries_key)
        return super().purge_queue()
