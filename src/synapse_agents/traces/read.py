"""Reading traces: the roots, one whole tree, one model call's request and response.

`list_roots` is one query whatever the filters (the `errors` filter is an EXISTS over the tree,
the cursor a subquery on the row it names). `tree` is three reads by the root's id (runs, model
calls, tool calls), assembled in memory: a model call or a tool call hangs under its run, a run
started inside a tool hangs under that tool (by span ids), any other run under its parent run.
Asking for a run below the root returns the subtree from that run (a workflow step's).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.orm import aliased

from ..store import Store
from ..store.engine import writer
from .rows import unpack
from .tables import DebugLog, TraceRun, TraceTool

PAGE_SIZE = 50


@dataclass
class RootFilters:
    """What `GET /api/traces` narrows the roots to."""

    agent: str | None = None
    """An agent key (slug)."""
    origin: str | None = None
    workflow_run_id: str | None = None
    conversation_id: str | None = None
    message_id: str | None = None
    errors: bool = False
    """Only trees in which some run failed."""
    since: datetime | None = None
    until: datetime | None = None
    before: str | None = None
    """The last root of the previous page (its `agent_run_id`)."""
    limit: int = PAGE_SIZE


def list_roots(store: Store, filters: RootFilters) -> list[TraceRun]:
    """Roots (runs without a parent, workflow steps at depth 1), newest first: one query."""
    query = select(TraceRun).where(TraceRun.is_root.is_(True))
    if filters.agent:
        query = query.where(TraceRun.agent_key == filters.agent)
    if filters.origin:
        query = query.where(TraceRun.origin == filters.origin)
    if filters.workflow_run_id:
        query = query.where(TraceRun.workflow_run_id == filters.workflow_run_id)
    if filters.conversation_id:
        query = query.where(TraceRun.conversation_id == filters.conversation_id)
    if filters.message_id:
        query = query.where(TraceRun.message_id == filters.message_id)
    if filters.since is not None:
        query = query.where(TraceRun.started_at >= filters.since)
    if filters.until is not None:
        query = query.where(TraceRun.started_at < filters.until)
    if filters.errors:
        failed = aliased(TraceRun)
        query = query.where(
            exists().where(failed.root_run_id == TraceRun.root_run_id, failed.status == 'error')
        )
    if filters.before:
        anchor = aliased(TraceRun)
        started = select(anchor.started_at).where(anchor.agent_run_id == filters.before).scalar_subquery()
        # The plain bound first: the index range starts at the cursor instead of filtering to it.
        query = query.where(TraceRun.started_at <= started).where(
            or_(
                TraceRun.started_at < started,
                and_(TraceRun.started_at == started, TraceRun.agent_run_id < filters.before),
            )
        )
    query = query.order_by(TraceRun.started_at.desc(), TraceRun.agent_run_id.desc()).limit(filters.limit)
    with store.read() as session:
        return list(session.scalars(query).all())


def _run_node(run: TraceRun) -> dict[str, Any]:
    return {
        'kind': 'run',
        'id': run.agent_run_id,
        'name': run.agent_name or run.agent_key or 'agent',
        'agent_run_id': run.agent_run_id,
        'parent_run_id': run.parent_run_id,
        'depth': run.depth,
        'origin': run.origin,
        'module': run.module,
        'agent_key': run.agent_key,
        'conversation_id': run.conversation_id,
        'message_id': run.message_id,
        'workflow_run_id': run.workflow_run_id,
        'trace_id': run.trace_id,
        'model': run.model,
        'status': run.status,
        'error': run.error,
        'input_tokens': run.input_tokens,
        'output_tokens': run.output_tokens,
        'cost': run.cost,
        'model_calls': run.model_calls,
        'tool_calls': run.tool_calls,
        'output': run.output,
        'started_at': run.started_at,
        'duration_ms': run.duration_ms,
        'children': [],
    }


def _call_node(call: DebugLog) -> dict[str, Any]:
    return {
        'kind': 'model',
        'id': call.id,
        'name': call.model or 'model',
        'agent_run_id': call.agent_run_id,
        'depth': call.depth,
        'action': call.action,
        'model': call.model,
        'provider': call.provider,
        'status': 'error' if call.error else 'ok',
        'error': call.error,
        'input_tokens': call.input_tokens,
        'output_tokens': call.output_tokens,
        'cost': call.cost,
        'finish_reason': call.finish_reason,
        'truncated': call.truncated,
        'started_at': call.started_at,
        'duration_ms': call.duration_ms,
        'children': [],
    }


def _tool_node(tool: TraceTool) -> dict[str, Any]:
    return {
        'kind': 'tool',
        'id': tool.id,
        'name': tool.name,
        'agent_run_id': tool.agent_run_id,
        'tool_call_id': tool.tool_call_id,
        'arguments': tool.arguments,
        'result': tool.result,
        'status': 'error' if tool.status == 'error' else 'ok',
        'error': tool.error,
        'started_at': tool.started_at,
        'duration_ms': tool.duration_ms,
        'children': [],
    }


def tree(store: Store, agent_run_id: str) -> dict[str, Any] | None:
    """The tree from run `agent_run_id` down (see the module docstring); None when it is unknown."""
    with store.read() as session:
        root_id = session.scalar(select(TraceRun.root_run_id).where(TraceRun.agent_run_id == agent_run_id))
        if root_id is None:
            return None
        runs = session.scalars(select(TraceRun).where(TraceRun.root_run_id == root_id)).all()
        calls = session.scalars(
            select(DebugLog).where(DebugLog.root_run_id == root_id).order_by(DebugLog.started_at)
        ).all()
        tools = session.scalars(
            select(TraceTool).where(TraceTool.root_run_id == root_id).order_by(TraceTool.started_at)
        ).all()
    run_nodes = {run.agent_run_id: _run_node(run) for run in runs}
    by_span: dict[str, dict[str, Any]] = {}
    children: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for tool in tools:
        node = _tool_node(tool)
        by_span[tool.span_id] = node
        children[tool.agent_run_id].append(node)
    for call in calls:
        children[call.agent_run_id].append(_call_node(call))
    trees = _Forest()
    for run in sorted(runs, key=lambda r: (r.started_at, r.agent_run_id)):
        node = run_nodes[run.agent_run_id]
        holder = by_span.get(run.parent_span_id or '')
        parent = holder['agent_run_id'] if holder is not None else run.parent_run_id
        if parent not in run_nodes:
            continue
        if not trees.join(run.agent_run_id, parent):  # a tampered row: its parent is its descendant
            node['corrupt'] = (
                f'trace_runs {run.agent_run_id}: its parent run {parent} is one of its own runs (a cycle)'
            )
        elif holder is not None:
            holder['children'].append(node)
        else:
            children[parent].append(node)
    for run_id, nodes in children.items():
        if run_id in run_nodes:
            run_nodes[run_id]['children'].extend(nodes)
    for node in [*run_nodes.values(), *by_span.values()]:
        node['children'].sort(key=lambda child: child['started_at'])
    return run_nodes.get(agent_run_id)


class _Forest:
    """Runs joined to their parents, each once; a join that would close a loop is refused."""

    def __init__(self) -> None:
        self.top: dict[str, str] = {}

    def _find(self, run_id: str) -> str:
        top = self.top.setdefault(run_id, run_id)
        while top != self.top[top]:
            self.top[top] = self.top[self.top[top]]
            top = self.top[top]
        return top

    def join(self, child: str, parent: str) -> bool:
        """Put `child` (still the top of its own runs) under `parent`; False when `parent` is below it."""
        top = self._find(parent)
        if top == self._find(child):
            return False
        self.top[self._find(child)] = top
        return True


def call_detail(store: Store, debug_id: str) -> dict[str, Any] | None:
    """One model call: its row and its data (request, history, turns, usage), uncompressed."""
    with store.read() as session:
        call = session.get(DebugLog, debug_id)
        if call is None:
            return None
        node = _call_node(call)
        node.pop('children')
        node.update(
            parent_run_id=call.parent_run_id,
            root_run_id=call.root_run_id,
            origin=call.origin,
            module=call.module,
            workflow_run_id=call.workflow_run_id,
            conversation_id=call.conversation_id,
            total_tokens=call.total_tokens,
            data_bytes=call.data_bytes,
            data=unpack(call.data, call.id),
        )
        return node


def call_place(store: Store, debug_id: str) -> tuple[str, int] | None:
    """The run of model call `debug_id` and the call's place among that run's calls (0 first, by
    start), or None when there is no such call."""
    with store.read() as session:
        call = session.get(DebugLog, debug_id)
        if call is None:
            return None
        earlier = session.scalar(
            select(func.count())
            .select_from(DebugLog)
            .where(
                DebugLog.agent_run_id == call.agent_run_id,
                or_(
                    DebugLog.started_at < call.started_at,
                    and_(DebugLog.started_at == call.started_at, DebugLog.id < call.id),
                ),
            )
        )
        return call.agent_run_id, int(earlier or 0)


def prune_older(store: Store, before: datetime) -> int:
    """Remove trace rows of trees that started before `before` and belong to no conversation (rows
    that belong to one go with it); how many runs were removed."""
    from sqlalchemy import delete

    with writer(store.engine).begin() as connection:
        old = select(TraceRun.root_run_id).where(
            TraceRun.is_root.is_(True), TraceRun.conversation_id.is_(None), TraceRun.started_at < before
        )
        roots = [row[0] for row in connection.execute(old)]
        removed = 0
        for start in range(0, len(roots), 500):
            chunk = roots[start : start + 500]
            removed += connection.execute(delete(TraceRun).where(TraceRun.root_run_id.in_(chunk))).rowcount
            connection.execute(delete(DebugLog).where(DebugLog.root_run_id.in_(chunk)))
            connection.execute(delete(TraceTool).where(TraceTool.root_run_id.in_(chunk)))
        return removed
