"""The sources service: creating, changing, listing and deleting retrieval sources, and reading
their files and chunks (blocking: call from a thread in async code).

A source's kind picks its connector (`connectors.connector_for`), which checks and normalises its
`config`; kind-specific inputs (`path`, `include`, `exclude`, `urls`) are folded into it. Deleting a
source deletes its files' rows, its chunks and the files uploaded to it (`SYNAPSE_HOME/rag/<id>/`);
a folder source's own folder is never touched.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pluggy
from sqlalchemy import delete as sa_delete
from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import defer

from ..errors import InvalidScope, SourceConflict, SourceInvalid, SourceNotFound
from ..scope import parse_label
from ..settings import Settings
from ..store import Store
from ..store.ids import is_valid_id, new_id, shown_id
from ..store.schema import utcnow
from .claims import is_live
from .connectors import connector_for, upload_folder
from .search import chunk_json
from .tables import OWNER, RagChunk, RagFile, RagSource

SLUG = re.compile(r'^[a-z0-9][a-z0-9-]{0,63}$')
CONFIG_FIELDS = ('path', 'include', 'exclude', 'urls')
CHANGEABLE = ('name', 'description', 'active', *CONFIG_FIELDS)
MAX_NAME = 200
MAX_DESCRIPTION = 2000
MAX_PAGE = 200


def shown_state(row: RagSource, stale_after: float | None) -> tuple[str, str | None]:
    """The status and last error to show: a run that stopped beating (killed) shows `failed`, saying
    so, rather than `indexing` for ever (the next run takes its claim over)."""
    if row.status == 'indexing' and stale_after is not None and not is_live(row, stale_after):
        return (
            'failed',
            'The indexing run stopped without finishing (killed, or its machine lost); index again.',
        )
    return row.status, row.last_error


def source_json(row: RagSource, stale_after: float | None = None) -> dict[str, Any]:
    """A source as the API shows it (`stale_after`: see `shown_state`)."""
    status, last_error = shown_state(row, stale_after)
    return {
        'id': row.id,
        'slug': row.slug,
        'name': row.name,
        'description': row.description,
        'kind': row.kind,
        'config': row.config,
        'tenant': row.tenant,
        'active': row.active,
        'status': status,
        'last_error': last_error,
        'total_files': row.total_files,
        'processed_files': row.processed_files,
        'current_file': row.current_file,
        'document_count': row.document_count,
        'chunk_count': row.chunk_count,
        'embedder': row.embedder,
        'last_indexed_at': row.last_indexed_at,
        'created_at': row.created_at,
        'updated_at': row.updated_at,
    }


def progress_json(row: RagSource, stale_after: float | None = None) -> dict[str, Any]:
    """A source's indexing progress (`stale_after`: see `shown_state`)."""
    status, last_error = shown_state(row, stale_after)
    keys = ('processed_files', 'total_files', 'current_file', 'chunk_count')
    return {
        'status': status,
        'last_error': last_error,
        **{key: getattr(row, key) for key in keys},
        'document_count': row.document_count,
        'last_indexed_at': row.last_indexed_at,
    }


def file_json(row: RagFile) -> dict[str, Any]:
    keys = ('identifier', 'status', 'error', 'chunk_count', 'size', 'indexed_at')
    return {key: getattr(row, key) for key in keys}


def check_slug(value: Any) -> str:
    if not isinstance(value, str) or not SLUG.match(value):
        raise SourceInvalid(
            'slug: lowercase letters, digits and -, starting with a letter or digit (64 at most).'
        )
    return value


def check_tenant(value: Any) -> str | None:
    """A `type:id` tenant label in stored form (None: shared by every tenant)."""
    if value is None or value == '':
        return None
    if not isinstance(value, str):
        raise SourceInvalid("tenant: a 'type:id' label.")
    try:
        kind, ident = parse_label('tenant', value)
    except InvalidScope as exc:
        raise SourceInvalid(str(exc)) from exc
    return f'{kind}:{ident}'


def _text(field: str, value: Any, limit: int, *, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise SourceInvalid(f'{field}: text{" (required)" if required else ""}.')
    if len(value) > limit or '\x00' in value:
        raise SourceInvalid(f'{field}: at most {limit} characters, no NUL.')
    return value.strip() or None


def _config(kind: str, fields: Mapping[str, Any], current: Mapping[str, Any] | None = None) -> dict[str, Any]:
    config = dict(current or {})
    for key in CONFIG_FIELDS:
        if fields.get(key) is not None:
            config[key] = fields[key]
    return config


def create(
    store: Store,
    settings: Settings,
    manager: pluggy.PluginManager,
    *,
    slug: Any,
    name: Any,
    kind: Any,
    description: Any = None,
    tenant: Any = None,
    active: Any = True,
    **fields: Any,
) -> RagSource:
    """A new source (status `pending`); `SourceConflict` when the slug is taken."""
    slug = check_slug(slug)
    name = _text('name', name, MAX_NAME, required=True)
    description = _text('description', description, MAX_DESCRIPTION, required=False)
    if not isinstance(active, bool):
        raise SourceInvalid('active: true or false.')
    if not isinstance(kind, str) or not kind:
        raise SourceInvalid('kind: the kind of source (folder, upload, ...).')
    unknown = sorted(set(fields) - set(CONFIG_FIELDS))
    if unknown:
        raise SourceInvalid(f'{unknown[0]}: not a field of a source.')
    source_id = new_id()
    connector = connector_for(kind, manager)
    if kind == 'upload':
        config = connector.check({'source_id': source_id}, settings.home)
    else:
        config = connector.check(_config(kind, fields), settings.home)
    row = RagSource(
        id=source_id,
        slug=slug,
        name=name,
        description=description,
        kind=kind,
        config=config,
        tenant=check_tenant(tenant),
        active=active,
        status='pending',
        total_files=0,
        processed_files=0,
        document_count=0,
        chunk_count=0,
    )
    try:
        with store.write() as session:
            if session.scalar(select(RagSource.id).where(RagSource.slug == slug)) is not None:
                raise SourceConflict(f'A source with slug {slug!r} exists already.')
            session.add(row)
            session.flush()
            session.expunge(row)
    except IntegrityError as exc:  # two creations at once: the unique slug decided
        raise SourceConflict(f'A source with slug {slug!r} exists already.') from exc
    return row


def get(store: Store, slug: str) -> RagSource:
    """The source with `slug`, or `SourceNotFound`."""
    with store.read() as session:
        row = session.scalar(select(RagSource).where(RagSource.slug == slug))
        if row is None:
            raise SourceNotFound(f'No source with slug {shown_id(slug)}.')
        session.expunge(row)
    return row


def list_sources(store: Store) -> list[RagSource]:
    """Every source, by slug."""
    with store.read() as session:
        rows = list(session.scalars(select(RagSource).order_by(RagSource.slug)))
        session.expunge_all()
    return rows


def update(
    store: Store, settings: Settings, manager: pluggy.PluginManager, slug: str, changes: Mapping[str, Any]
) -> RagSource:
    """Change a source's name, description, active flag or kind-specific fields (checked again)."""
    unknown = sorted(set(changes) - set(CHANGEABLE))
    if unknown:
        raise SourceInvalid(f'{unknown[0]}: not a field a source may change ({", ".join(CHANGEABLE)}).')
    current = get(store, slug)
    values: dict[str, Any] = {}
    if 'name' in changes:
        values['name'] = _text('name', changes['name'], MAX_NAME, required=True)
    if 'description' in changes:
        values['description'] = _text('description', changes['description'], MAX_DESCRIPTION, required=False)
    if 'active' in changes:
        if not isinstance(changes['active'], bool):
            raise SourceInvalid('active: true or false.')
        values['active'] = changes['active']
    if any(changes.get(key) is not None for key in CONFIG_FIELDS):
        if current.kind == 'upload':
            raise SourceInvalid('an upload source has no path, globs or urls: upload files to it.')
        connector = connector_for(current.kind, manager)
        values['config'] = connector.check(_config(current.kind, changes, current.config), settings.home)
    with store.write() as session:
        row = session.get(RagSource, current.id, with_for_update=True)
        if row is None:
            raise SourceNotFound(f'No source with slug {shown_id(slug)}.')
        for key, value in values.items():
            setattr(row, key, value)
        row.updated_at = utcnow()
        session.flush()
        session.expunge(row)
    return row


def delete(store: Store, settings: Settings, slug: str) -> None:
    """Delete the source, its files' rows, its chunks and its uploads (a run indexing it stops)."""
    row = get(store, slug)
    with store.write() as session:
        store.tables.delete_owned(session.connection(), OWNER, [row.id])
    folder = uploads_of(settings, row.id)
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)


def uploads_of(settings: Settings, source_id: str) -> Path:
    """Where the files uploaded to a source are kept."""
    return upload_folder(settings.home, source_id)


def files(store: Store, slug: str, status: str | None = None) -> list[RagFile]:
    """The files of a source as last indexed (only `status` ones when given), by identifier."""
    if status is not None and status not in ('indexed', 'failed'):
        raise SourceInvalid('status: indexed or failed.')
    row = get(store, slug)
    query = select(RagFile).where(RagFile.source_id == row.id)
    if status is not None:
        query = query.where(RagFile.status == status)
    with store.read() as session:
        found = list(session.scalars(query.order_by(RagFile.identifier)))
        session.expunge_all()
    return found


def documents(
    store: Store, slug: str, *, file: str | None = None, offset: int = 0, limit: int = 50
) -> tuple[list[dict[str, Any]], int]:
    """A page of a source's chunks (of one file when given), in file and chunk order, and how many."""
    if offset < 0 or not 1 <= limit <= MAX_PAGE:
        raise SourceInvalid(f'offset: 0 or more; limit: from 1 to {MAX_PAGE}.')
    row = get(store, slug)
    where = [RagChunk.source_id == row.id]
    if file:
        where.append(RagChunk.file_identifier == file)
    with store.read() as session:
        total = session.scalar(select(func.count()).select_from(RagChunk).where(*where)) or 0
        chunks = list(
            session.scalars(
                select(RagChunk)
                .options(defer(RagChunk.embedding))
                .where(*where)
                .order_by(RagChunk.file_identifier, RagChunk.chunk_index, RagChunk.id)
                .offset(offset)
                .limit(limit)
            )
        )
        session.expunge_all()
    return [chunk_json(c, row.slug, row.name) for c in chunks], int(total)


def chunk(store: Store, chunk_id: str) -> dict[str, Any]:
    """One chunk with its citation, or `SourceNotFound`."""
    if not is_valid_id(chunk_id):
        raise SourceNotFound(f'No chunk with id {shown_id(chunk_id)}.')
    with store.read() as session:
        found = session.get(RagChunk, chunk_id, options=[defer(RagChunk.embedding)])
        source = session.get(RagSource, found.source_id) if found is not None else None
        if found is None or source is None:
            raise SourceNotFound(f'No chunk with id {shown_id(chunk_id)}.')
        return chunk_json(found, source.slug, source.name)


def stale_chunks(store: Store, source_id: str, embedder: str | None) -> int:
    """How many of a source's chunks were not made with `embedder` (they wait for a re-embed)."""
    if embedder is None:
        return 0
    with store.read() as session:
        count = session.scalar(
            select(func.count())
            .select_from(RagChunk)
            .where(
                RagChunk.source_id == source_id,
                or_(RagChunk.embedder.is_(None), RagChunk.embedder != embedder),
            )
        )
    return int(count or 0)


def remove_upload(store: Store, settings: Settings, slug: str, identifier: str) -> None:
    """Remove a file uploaded to an `upload` source, with its chunks and its row (`SourceNotFound`
    when the source has no such file)."""
    row = get(store, slug)
    if row.kind != 'upload':
        raise SourceInvalid('identifier: only an upload source has uploaded files.')
    folder = uploads_of(settings, row.id)
    target = folder / identifier
    inside = target.resolve().parent == folder.resolve() and not identifier.startswith('.')
    with store.write() as session:
        known = session.scalar(
            select(RagFile.id).where(RagFile.source_id == row.id, RagFile.identifier == identifier)
        )
        if not inside or (known is None and not target.is_file()):
            raise SourceNotFound(f'No file {shown_id(identifier)} in source {slug!r}.')
        session.execute(
            sa_delete(RagChunk).where(RagChunk.source_id == row.id, RagChunk.file_identifier == identifier)
        )
        session.execute(
            sa_delete(RagFile).where(RagFile.source_id == row.id, RagFile.identifier == identifier)
        )
    target.unlink(missing_ok=True)
