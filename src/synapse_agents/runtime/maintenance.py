"""The root's maintenance jobs: the sweep of turns left in flight, the heartbeat, the daily auto-prune.

The auto-prune reads `retention_days` at each run, the registry's stored value first, so a value
changed in the dashboard applies from the next run on.

The sweep runs once at start-up, before the root serves, and then every `HEARTBEAT_INTERVAL_S` as
the heartbeat: `sweep_in_flight` heart-beats this process's instance first, then interrupts only
what processes found gone left in flight (see `store.instances`), and the decisions they held
wait again (`conversations.decisions.give_back_dead_claims`); it also deletes the spending
reservations past their expiry (a process died during the call: `accounting.limits`).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from ..accounting.limits import sweep_expired
from ..conversations.decisions import give_back_dead_claims
from ..conversations.repository import ConversationRepository
from ..conversations.turn_writes import sweep_in_flight
from ..registry.settings_store import effective
from ..settings import Settings
from ..store import Store
from ..store.engine import writer
from ..store.instances import HEARTBEAT_INTERVAL_S, current, live_instances
from ..traces.read import prune_older
from .jobs import Job

if TYPE_CHECKING:
    from ..plugins.hookspecs import Root

logger = logging.getLogger('synapse.jobs')

SWEEP_JOB = 'sweep-in-flight'
HEARTBEAT_JOB = 'heartbeat'
PRUNE_JOB = 'auto-prune'
PRUNE_INTERVAL_S = 24 * 60 * 60


def sweep(store: Store) -> tuple[int, int]:
    """Mark turns and tool calls a previous process left in flight as interrupted, give back the
    decisions held by processes that are gone (their calls wait again), and remove the spending
    reservations whose call never ended; how many turns and tool calls were interrupted."""
    with writer(store.engine).begin() as connection:
        messages, tools = sweep_in_flight(connection)
        # The instances found gone were just removed: what is left (and this process) is live.
        given_back = give_back_dead_claims(connection, live_instances(connection, current()))
    if messages or tools:
        logger.warning('marked %d turns and %d tool calls left in flight as interrupted', messages, tools)
    if given_back:
        logger.warning('gave back %d tool call decisions whose turn never ended: they wait again', given_back)
    expired = sweep_expired(store)
    if expired:
        logger.warning('removed %d expired spending reservations (their calls never ended)', expired)
    return messages, tools


def prune(store: Store, days: int) -> int:
    """Remove conversations not updated for `days` days (their traces and debug logs with them) and
    the traces older than that of runs outside any conversation; how many conversations were removed."""
    report = ConversationRepository(store).prune(days)
    traces = prune_older(store, datetime.now(UTC) - timedelta(days=days))
    if traces:
        logger.warning('auto-prune removed %d traces older than %d days', traces, days)
    if report.conversations:
        logger.warning('auto-prune removed %d conversations older than %d days', report.conversations, days)
    return report.conversations


def maintenance_jobs(runtime: Root) -> list[Job]:
    """The jobs every root runs (the sweep, the heartbeat), plus auto-prune when it runs maintenance
    and `auto_prune` is on."""
    store = runtime.store
    jobs = [
        Job(SWEEP_JOB, lambda: sweep(store)),
        Job(HEARTBEAT_JOB, lambda: sweep(store), HEARTBEAT_INTERVAL_S, run_at_start=False),
    ]
    if runtime.maintenance and runtime.settings.auto_prune:
        settings = runtime.settings
        jobs.append(Job(PRUNE_JOB, lambda: prune(store, retention_days(store, settings)), PRUNE_INTERVAL_S))
    return jobs


def retention_days(store: Store, settings: Settings) -> int:
    """The `retention_days` in effect at each run: the registry's stored value first."""
    return int(effective(store, settings).retention_days)
