"""Eval datasets as stored: create, read (now or at a version), change, delete (blocking).

Every change writes the dataset whole as a new version. Two changes made at once on the same
version cannot both land: the second one's version row collides on its primary key (the database
decides, whichever process made it) and is refused with `EvalConflict`; a change that names the
version it was made on (`expected_version`) is refused as well once another has landed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from ..errors import EvalConflict, EvalDatasetNotFound, EvalInvalid
from ..store import Store
from ..store.schema import utcnow
from .cases import EvaluatorTypes, checked
from .evaluators import SYNAPSE_EVALUATORS
from .tables import EvalDataset, EvalDatasetVersion

KEY = re.compile(r'^[a-z0-9][a-z0-9_.-]{0,99}$')
"""A dataset key: lower-case letters, digits, `_`, `.` and `-`, up to 100, as in URLs and files."""
MAX_TAGS = 20
MAX_TAG = 50


@dataclass(frozen=True)
class DatasetChange:
    """What a new version changes; None leaves a field as it was (`cases` replaces all of them)."""

    name: str | None = None
    description: str | None = None
    tags: Sequence[str] | None = None
    cases: list[Any] | None = None
    evaluators: list[Any] | None = None
    clear_description: bool = False


@dataclass(frozen=True)
class DatasetVersion:
    """A dataset at one version, whole."""

    key: str
    version: int
    latest: int
    name: str
    description: str | None
    tags: list[str]
    cases: list[dict[str, Any]]
    evaluators: list[Any]
    change: str
    created_at: Any
    updated_at: Any = None
    history: list[dict[str, Any]] = field(default_factory=list)


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not KEY.match(key):
        raise EvalInvalid(
            'key',
            'lower-case letters, digits, "_", "." and "-", starting with a letter or digit (at most 100)',
        )
    return key


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > 200 or '\x00' in name:
        raise EvalInvalid('name', 'a name of 1 to 200 characters is required')
    return name.strip()


def _check_tags(tags: Any) -> list[str]:
    if not isinstance(tags, (list, tuple)) or len(tags) > MAX_TAGS:
        raise EvalInvalid('tags', f'a list of at most {MAX_TAGS} tags')
    clean: list[str] = []
    for index, tag in enumerate(tags):
        if not isinstance(tag, str) or not tag.strip() or len(tag) > MAX_TAG or '\x00' in tag:
            raise EvalInvalid(f'tags.{index}', f'a tag of 1 to {MAX_TAG} characters')
        if tag.strip() not in clean:
            clean.append(tag.strip())
    return clean


def _check_description(description: Any) -> str | None:
    if description is None:
        return None
    if not isinstance(description, str) or len(description) > 4000 or '\x00' in description:
        raise EvalInvalid('description', 'at most 4,000 characters')
    return description


def _version_of(dataset: EvalDataset, row: EvalDatasetVersion) -> DatasetVersion:
    return DatasetVersion(
        key=dataset.key,
        version=row.version,
        latest=dataset.version,
        name=row.name,
        description=row.description,
        tags=list(row.tags or []),
        cases=list(row.cases or []),
        evaluators=list(row.evaluators or []),
        change=row.change,
        created_at=row.created_at,
        updated_at=dataset.updated_at,
    )


def create(
    store: Store,
    key: str,
    name: str,
    *,
    cases: list[Any],
    evaluators: list[Any] | None = None,
    description: str | None = None,
    tags: Sequence[str] = (),
    note: str = 'created',
    types: EvaluatorTypes = SYNAPSE_EVALUATORS,
) -> DatasetVersion:
    """A new dataset at version 1; `EvalConflict` when the key is taken. `types`: the evaluator
    classes its cases may name beside pydantic-evals' own (`known.py`)."""
    key = check_key(key)
    name = _check_name(name)
    clean_tags = _check_tags(list(tags))
    description = _check_description(description)
    content = checked(cases, evaluators, types=types)
    now = utcnow()
    dataset = EvalDataset(
        key=key,
        name=name,
        description=description,
        tags=clean_tags,
        version=1,
        case_count=len(content.cases),
        created_at=now,
        updated_at=now,
    )
    row = EvalDatasetVersion(
        dataset_key=key,
        version=1,
        name=name,
        description=description,
        tags=clean_tags,
        cases=content.cases,
        evaluators=content.evaluators,
        change=note,
        created_at=now,
    )
    try:
        with store.write() as session:
            session.add(dataset)
            session.flush()
            session.add(row)
            session.flush()
            result = _version_of(dataset, row)
    except IntegrityError:
        raise EvalConflict(f'A dataset with the key {key!r} already exists.') from None
    return result


def change(
    store: Store,
    key: str,
    what: DatasetChange,
    *,
    expected_version: int | None = None,
    note: str = 'edited',
    types: EvaluatorTypes = SYNAPSE_EVALUATORS,
) -> DatasetVersion:
    """The dataset with `what` applied, as a new version (see the module for races)."""
    with store.read() as session:
        dataset = session.get(EvalDataset, key)
        if dataset is None:
            raise EvalDatasetNotFound(f'No eval dataset {key!r}.')
        current = session.get(EvalDatasetVersion, (key, dataset.version))
        assert current is not None, 'a dataset always has its current version'
        base_version = dataset.version
        name = current.name if what.name is None else _check_name(what.name)
        description = None if what.clear_description else current.description
        if what.description is not None:
            description = _check_description(what.description)
        tags = list(current.tags or []) if what.tags is None else _check_tags(list(what.tags))
        cases = current.cases if what.cases is None else what.cases
        evaluators = current.evaluators if what.evaluators is None else what.evaluators
    if expected_version is not None and expected_version != base_version:
        raise EvalConflict(
            f'Dataset {key!r} is at version {base_version}, not {expected_version}: read it again and retry.'
        )
    content = checked(cases, evaluators, types=types)
    now = utcnow()
    version = base_version + 1
    row = EvalDatasetVersion(
        dataset_key=key,
        version=version,
        name=name,
        description=description,
        tags=tags,
        cases=content.cases,
        evaluators=content.evaluators,
        change=note,
        created_at=now,
    )
    try:
        with store.write() as session:
            session.add(row)
            session.flush()
            updated = session.execute(
                update(EvalDataset)
                .where(EvalDataset.key == key, EvalDataset.version == base_version)
                .values(
                    version=version,
                    name=name,
                    description=description,
                    tags=tags,
                    case_count=len(content.cases),
                    updated_at=now,
                )
            )
            if updated.rowcount != 1:  # type: ignore[attr-defined]
                raise EvalConflict(f'Dataset {key!r} changed meanwhile: read it again and retry.')
            dataset = session.get(EvalDataset, key)
            assert dataset is not None
            result = _version_of(dataset, row)
    except IntegrityError:
        raise EvalConflict(f'Dataset {key!r} changed meanwhile: read it again and retry.') from None
    return result


def add_case(
    store: Store,
    key: str,
    case: dict[str, Any],
    *,
    note: str = 'case added',
    types: EvaluatorTypes = SYNAPSE_EVALUATORS,
) -> DatasetVersion:
    """The dataset with `case` appended, as a new version (a case named as another is refused)."""
    current = read(store, key)
    return change_with_cases(store, current, [*current.cases, case], note, types=types)


def change_with_cases(
    store: Store,
    current: DatasetVersion,
    cases: list[Any],
    note: str,
    *,
    types: EvaluatorTypes = SYNAPSE_EVALUATORS,
) -> DatasetVersion:
    """`current` with its cases replaced by `cases`, made on its version (a race is a conflict)."""
    try:
        return change(
            store,
            current.key,
            DatasetChange(cases=cases),
            expected_version=current.version,
            note=note,
            types=types,
        )
    except EvalInvalid as error:
        if error.field.startswith(f'cases.{len(cases) - 1}'):
            raise EvalInvalid(
                'case' + error.field.removeprefix(f'cases.{len(cases) - 1}'), error.problem
            ) from None
        raise


def read(store: Store, key: str, version: int | None = None) -> DatasetVersion:
    """The dataset now, or at `version`; `EvalDatasetNotFound` when there is no such one."""
    with store.read() as session:
        dataset = session.get(EvalDataset, key)
        if dataset is None:
            raise EvalDatasetNotFound(f'No eval dataset {key!r}.')
        row = session.get(EvalDatasetVersion, (key, dataset.version if version is None else version))
        if row is None:
            raise EvalDatasetNotFound(
                f'Dataset {key!r} has no version {version} (it is at {dataset.version}).'
            )
        return _version_of(dataset, row)


def listed(store: Store, tag: str | None = None) -> list[EvalDataset]:
    """Every dataset, most recently changed first; with `tag`, those carrying it."""
    with store.read() as session:
        rows = list(
            session.scalars(select(EvalDataset).order_by(EvalDataset.updated_at.desc(), EvalDataset.key))
        )
        session.expunge_all()
    return [row for row in rows if tag is None or tag in (row.tags or [])]


def versions(store: Store, key: str) -> list[EvalDatasetVersion]:
    """A dataset's versions, newest first."""
    with store.read() as session:
        if session.get(EvalDataset, key) is None:
            raise EvalDatasetNotFound(f'No eval dataset {key!r}.')
        rows = list(
            session.scalars(
                select(EvalDatasetVersion)
                .where(EvalDatasetVersion.dataset_key == key)
                .order_by(EvalDatasetVersion.version.desc())
            )
        )
        session.expunge_all()
    return rows


def remove(store: Store, key: str) -> int:
    """Delete a dataset and all its versions; how many versions went."""
    with store.write() as session:
        if session.get(EvalDataset, key) is None:
            raise EvalDatasetNotFound(f'No eval dataset {key!r}.')
        gone = session.execute(delete(EvalDatasetVersion).where(EvalDatasetVersion.dataset_key == key))
        session.execute(delete(EvalDataset).where(EvalDataset.key == key))
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]
