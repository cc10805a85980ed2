"""Who owns in-flight work: each Synapse process is an instance with a heartbeat row.

A turn's `streaming` assistant row and its `pending` tool rows record the instance that runs them
(`owner`). An instance heart-beats its `store_instances` row every `HEARTBEAT_INTERVAL_S`; the
sweep (`conversations.turn_writes.sweep_in_flight`) marks interrupted only the in-flight rows whose owner is
not live, so several processes on one database never interrupt each other's turns, and the turns
of a process that died are swept by the next sweep of any survivor.

An owner is live when it is the sweeping instance itself, or when its row exists and

- it runs on this machine, in this process-id namespace (same `pid_scope`): its process exists
  (a restart after a crash sweeps the dead process's turns at once, without waiting for a lease);
- it runs elsewhere: its heartbeat is younger than the lease (`LEASE_S`, three intervals).

Rows with no owner (written before owners were recorded) are never live. Times come from the
database's clock on PostgreSQL, so machines whose clocks disagree still agree on a heartbeat's age.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import Connection, delete, func, insert, select, update

from .ids import new_id
from .schema import Base, StoreInstance, utcnow

HEARTBEAT_INTERVAL_S = 10.0
"""How often a running instance heart-beats (and sweeps)."""
LEASE_S = 3 * HEARTBEAT_INTERVAL_S
"""How old a heartbeat may be before its instance counts as gone (for an instance elsewhere)."""

_instances = Base.metadata.tables[StoreInstance.__tablename__]


def pid_scope() -> str | None:
    """Where a process id means one process: this boot of this machine and its pid namespace.

    None where that cannot be told (not Linux): then only the heartbeat lease decides.
    """
    try:
        boot = Path('/proc/sys/kernel/random/boot_id').read_text().strip()
        namespace = os.readlink('/proc/self/ns/pid')
    except OSError:
        return None
    return f'{boot}/{namespace}'


@dataclass(frozen=True)
class Instance:
    """One running Synapse process as the store knows it."""

    id: str = field(default_factory=new_id)
    pid: int = field(default_factory=os.getpid)
    host: str = field(default_factory=socket.gethostname)
    pid_scope: str | None = field(default_factory=pid_scope)
    started_at: datetime = field(default_factory=utcnow)


_current: Instance | None = None


def current() -> Instance:
    """This process's instance (a forked child gets its own)."""
    global _current
    if _current is None or _current.pid != os.getpid():
        _current = Instance()
    return _current


def database_now(connection: Connection) -> datetime:
    """The time by the database's clock (PostgreSQL), or this machine's (SQLite, a local file)."""
    if connection.dialect.name == 'postgresql':
        now: datetime = connection.execute(select(func.now())).scalar_one()
        return now
    return utcnow()


def heartbeat(connection: Connection, instance: Instance) -> None:
    """Record that `instance` is alive (registering it, or again after a sweep removed it)."""
    now = database_now(connection)
    updated = connection.execute(
        update(_instances).where(_instances.c.id == instance.id).values(heartbeat_at=now)
    )
    if not updated.rowcount:
        connection.execute(
            insert(_instances).values(
                id=instance.id,
                pid=instance.pid,
                host=instance.host,
                pid_scope=instance.pid_scope,
                started_at=instance.started_at,
                heartbeat_at=now,
            )
        )


def retire(connection: Connection, instance: Instance) -> None:
    """`instance` is stopping: remove its row, so anything it left in flight is swept at once."""
    connection.execute(delete(_instances).where(_instances.c.id == instance.id))


def live_instances(connection: Connection, instance: Instance, lease_s: float = LEASE_S) -> list[str]:
    """The ids of the instances whose in-flight work must be left alone (`instance` included).

    Rows of the instances found gone are removed (their work is swept by the caller).
    """
    cutoff = database_now(connection) - timedelta(seconds=lease_s)
    rows = connection.execute(
        select(_instances.c.id, _instances.c.pid, _instances.c.pid_scope, _instances.c.heartbeat_at)
    ).all()
    live, gone = [instance.id], []
    for row in rows:
        if row.id == instance.id:
            continue
        if _is_live(row.pid, row.pid_scope, row.heartbeat_at, instance, cutoff):
            live.append(row.id)
        else:
            gone.append(row.id)
    if gone:
        connection.execute(delete(_instances).where(_instances.c.id.in_(gone)))
    return live


def _is_live(pid: int, scope: str | None, beat: datetime, me: Instance, cutoff: datetime) -> bool:
    if scope is not None and scope == me.pid_scope:
        # Same pid namespace: the process table is authoritative. Our own pid under another id
        # is an earlier incarnation of this process slot.
        return pid != me.pid and _pid_exists(pid)
    return beat >= cutoff


def _pid_exists(pid: int) -> bool:
    if pid <= 0:  # 0 and negative ids name process groups, not a process
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    except OSError:
        return False
    return True
