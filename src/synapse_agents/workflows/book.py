"""Workflows as stored: create, read (now or at a version), change, delete, sandboxes (blocking).

Every change writes the workflow whole as a new version (1, 2, 3, ...); every version stays
readable. Two changes made at once on one version cannot both land: the second one's version row
collides on its primary key and is refused with `WorkflowConflict`, as is a change that names the
version it was made on (`expected_version`) once another has landed. Definitions come here already
checked (`workflows/agents.py` checks the agents and output schemas, `definition.parse` the rest).

Sandbox workflows follow the registry's rule: listings leave them out unless asked, a key always
finds them, and `cleanup_sandbox` removes them with their versions and runs (runs first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import WorkflowConflict, WorkflowInvalid, WorkflowNotFound
from ..store import Store
from ..store.schema import utcnow
from .tables import Workflow, WorkflowRun, WorkflowRunStep, WorkflowVersion

KEY = re.compile(r'^[a-z0-9][a-z0-9_.-]{0,99}$')
"""A workflow key: lower-case letters, digits, `_`, `.` and `-`, up to 100, as in URLs."""
Sandboxes = Literal['exclude', 'include', 'only']


@dataclass(frozen=True)
class WorkflowView:
    """A workflow at one version, whole."""

    id: str
    key: str
    version: int
    latest: int
    name: str
    description: str | None
    definition: dict[str, Any]
    is_sandbox: bool
    change: str
    created_at: datetime
    updated_at: datetime


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not KEY.match(key):
        problem = (
            'lower-case letters, digits, "_", "." and "-", starting with a letter or digit (at most 100)'
        )
        raise WorkflowInvalid([('key', problem)])
    return key


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > 200 or '\x00' in name:
        raise WorkflowInvalid([('name', 'a name of 1 to 200 characters is required')])
    return name.strip()


def _check_description(description: Any) -> str | None:
    if description is not None and (
        not isinstance(description, str) or len(description) > 4000 or '\x00' in description
    ):
        raise WorkflowInvalid([('description', 'at most 4,000 characters')])
    return description


def _view(workflow: Workflow, row: WorkflowVersion) -> WorkflowView:
    return WorkflowView(
        id=workflow.id,
        key=workflow.key,
        version=row.version,
        latest=workflow.version,
        name=row.name,
        description=row.description,
        definition=dict(row.definition or {}),
        is_sandbox=workflow.is_sandbox,
        change=row.change,
        created_at=row.created_at,
        updated_at=workflow.updated_at,
    )


def create(
    store: Store,
    key: str,
    name: str,
    definition: dict[str, Any],
    *,
    description: str | None = None,
    is_sandbox: bool = False,
) -> WorkflowView:
    """A new workflow at version 1; `WorkflowConflict` when the key is taken."""
    key = check_key(key)
    name = _check_name(name)
    description = _check_description(description)
    now = utcnow()
    workflow = Workflow(
        key=key,
        name=name,
        description=description,
        definition=definition,
        version=1,
        step_count=len(definition.get('steps', [])),
        is_sandbox=bool(is_sandbox),
        created_at=now,
        updated_at=now,
    )
    try:
        with store.write() as session:
            session.add(workflow)
            session.flush()
            row = WorkflowVersion(
                workflow_id=workflow.id,
                version=1,
                name=name,
                description=description,
                definition=definition,
                change='created',
                created_at=now,
            )
            session.add(row)
            session.flush()
            return _view(workflow, row)
    except IntegrityError:
        raise WorkflowConflict(f'A workflow with the key {key!r} already exists.') from None


def change(
    store: Store,
    key: str,
    *,
    name: str | None = None,
    description: str | None = None,
    definition: dict[str, Any] | None = None,
    expected_version: int | None = None,
) -> WorkflowView:
    """The workflow with what is given changed, as a new version (see the module for races)."""
    current = read(store, key)
    if expected_version is not None and expected_version != current.version:
        raise WorkflowConflict(
            f'Workflow {key!r} is at version {current.version}, not {expected_version}: '
            'read it again and retry.'
        )
    name = current.name if name is None else _check_name(name)
    description = current.description if description is None else _check_description(description)
    definition = current.definition if definition is None else definition
    now = utcnow()
    version = current.version + 1
    row = WorkflowVersion(
        workflow_id=current.id,
        version=version,
        name=name,
        description=description,
        definition=definition,
        change='edited',
        created_at=now,
    )
    try:
        with store.write() as session:
            session.add(row)
            session.flush()
            updated = session.execute(
                update(Workflow)
                .where(Workflow.id == current.id, Workflow.version == current.version)
                .values(
                    version=version,
                    name=name,
                    description=description,
                    definition=definition,
                    step_count=len(definition.get('steps', [])),
                    updated_at=now,
                )
            )
            if updated.rowcount != 1:  # type: ignore[attr-defined]
                raise WorkflowConflict(f'Workflow {key!r} changed meanwhile: read it again and retry.')
            workflow = session.get(Workflow, current.id)
            assert workflow is not None
            return _view(workflow, row)
    except IntegrityError:
        raise WorkflowConflict(f'Workflow {key!r} changed meanwhile: read it again and retry.') from None


def read(store: Store, key: str, version: int | None = None) -> WorkflowView:
    """The workflow `key` (a sandbox too) now, or at `version`; `WorkflowNotFound` otherwise."""
    with store.read() as session:
        workflow = session.scalar(select(Workflow).where(Workflow.key == key))
        if workflow is None:
            raise WorkflowNotFound(f'No workflow {key!r}.')
        row = session.get(WorkflowVersion, (workflow.id, workflow.version if version is None else version))
        if row is None:
            raise WorkflowNotFound(
                f'Workflow {key!r} has no version {version} (it is at {workflow.version}).'
            )
        return _view(workflow, row)


def listed(store: Store, sandbox: Sandboxes = 'exclude') -> list[Workflow]:
    """Workflows by key: sandboxes left out, included, or `only` them."""
    query = select(Workflow).order_by(Workflow.key)
    if sandbox == 'exclude':
        query = query.where(Workflow.is_sandbox.is_(False))
    elif sandbox == 'only':
        query = query.where(Workflow.is_sandbox.is_(True))
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    return rows


def versions(store: Store, key: str) -> list[WorkflowVersion]:
    """A workflow's versions, newest first."""
    with store.read() as session:
        workflow = session.scalar(select(Workflow).where(Workflow.key == key))
        if workflow is None:
            raise WorkflowNotFound(f'No workflow {key!r}.')
        rows = list(
            session.scalars(
                select(WorkflowVersion)
                .where(WorkflowVersion.workflow_id == workflow.id)
                .order_by(WorkflowVersion.version.desc())
            )
        )
        session.expunge_all()
    return rows


def remove(store: Store, key: str) -> int:
    """Delete a workflow and its versions; its runs stay, their link set to null (they keep the
    key and version). How many runs were unlinked."""
    with store.write() as session:
        workflow = session.scalar(select(Workflow).where(Workflow.key == key))
        if workflow is None:
            raise WorkflowNotFound(f'No workflow {key!r}.')
        unlinked = session.execute(
            update(WorkflowRun).where(WorkflowRun.workflow_id == workflow.id).values(workflow_id=None)
        )
        session.execute(delete(WorkflowVersion).where(WorkflowVersion.workflow_id == workflow.id))
        session.execute(delete(Workflow).where(Workflow.id == workflow.id))
    return int(unlinked.rowcount or 0)  # type: ignore[attr-defined]


def cleanup_sandbox(session: Session) -> tuple[str, int]:
    """In the caller's transaction: delete every sandbox workflow, its runs (with their steps, and the
    runs of sandbox workflows deleted before) first, then its versions. `('workflows', how many)`:
    the registry's sandbox cleanup reports it."""
    ids = list(session.scalars(select(Workflow.id).where(Workflow.is_sandbox.is_(True))))
    sandboxed = or_(WorkflowRun.is_sandbox.is_(True), WorkflowRun.workflow_id.in_(ids))
    session.execute(
        delete(WorkflowRunStep).where(WorkflowRunStep.run_id.in_(select(WorkflowRun.id).where(sandboxed)))
    )
    session.execute(delete(WorkflowRun).where(sandboxed))
    if ids:
        session.execute(delete(WorkflowVersion).where(WorkflowVersion.workflow_id.in_(ids)))
        session.execute(delete(Workflow).where(Workflow.id.in_(ids)))
    return 'workflows', len(ids)
