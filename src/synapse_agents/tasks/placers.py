"""Placers: how an app's own signals fire events without Synapse knowing the app's objects.

A placer is a callable named in the `placers` setting (`name → module:callable`). It is given what
the app's signal gives (a Django `post_save`'s `sender, instance=..., created=...`, a blinker
signal's `sender, **kwargs`) and answers with what fires, or `None` for "nothing fires" (an upload
that belongs to no tenant):

    def file_uploaded(sender, instance, **kwargs):
        if instance.organization_id is None:
            return None
        return {'event': 'file.uploaded', 'tenant': ('org', str(instance.organization_id)),
                'subject': ('case', str(instance.case_id)), 'context': {'file_id': instance.id}}

Wiring it is one line: `post_save.connect(syn.placer('file_uploaded'), sender=File)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..import_path import ImportPathError, NotAnImportPath, resolve_import_path
from ..scope import Ref

ALLOWED_KEYS = frozenset({'event', 'tenant', 'subject', 'context'})


class PlacerError(ValueError):
    """A placer that cannot be found, or that answered with something that cannot fire."""


@dataclass(frozen=True)
class Placement:
    """What a placer answered: an event to fire, in a tenant, about a subject, with a context."""

    event: str
    tenant: Ref | None = None
    subject: Ref | None = None
    context: dict[str, Any] | None = None


def load_placer(name: str, placers: Mapping[str, str]) -> Callable[..., Any]:
    """The placer the setting names `name`; `PlacerError` when it is not configured or not importable."""
    spec = placers.get(name)
    if spec is None:
        known = ', '.join(sorted(placers)) or 'none'
        raise PlacerError(f'No placer named {name!r} in the placers setting (configured: {known}).')
    try:
        _module, found = resolve_import_path(spec)
    except NotAnImportPath:
        raise PlacerError(f'placer {name!r}: {spec!r} is not module:callable.') from None
    except ImportPathError as exc:  # not found, or the module itself failed (a syntax error, a raise)
        raise PlacerError(f'placer {name!r}: {spec!r} could not be imported ({exc}).') from exc
    if isinstance(found, type):
        try:
            found = found()  # a class whose instances are called, as the placer classes of other stacks
        except Exception as exc:
            raise PlacerError(
                f'placer {name!r}: {spec!r} is a class that could not be made without arguments ({exc}).'
            ) from exc
    if not callable(found):
        raise PlacerError(f'placer {name!r}: {spec!r} is not callable.')
    placer: Callable[..., Any] = found
    return placer


class LivePlacer:
    """The placer the setting names `name`, loaded again when the setting names another callable.

    `placers` returns the setting as it is now (it follows `pyproject.toml`: `settings_reload.py`),
    so a placer edited in `[tool.synapse] placers` applies from the next signal on. Loaded once
    here, so that a name that is not configured fails where the receiver is connected."""

    def __init__(self, name: str, placers: Callable[[], Mapping[str, str]]) -> None:
        self.name = name
        self._placers = placers
        self._spec = placers().get(name)
        self._function = load_placer(name, placers())

    def current(self) -> Callable[..., Any]:
        """The placer to call now; `PlacerError` when the setting no longer names a usable one."""
        placers = self._placers()
        spec = placers.get(self.name)
        if spec != self._spec:
            self._function = load_placer(self.name, placers)
            self._spec = spec
        return self._function


def placement_of(answer: Any, name: str) -> Placement | None:
    """A placer's answer as a `Placement` (None: nothing fires); `PlacerError` for anything else."""
    if answer is None:
        return None
    if isinstance(answer, Placement):
        return answer
    if not isinstance(answer, Mapping):
        raise PlacerError(
            f'placer {name!r} answered {type(answer).__name__}: expected a dict with event, tenant, '
            'subject and context, or None.'
        )
    unknown = set(answer) - ALLOWED_KEYS
    if unknown:
        raise PlacerError(f'placer {name!r} answered unknown keys: {", ".join(sorted(map(str, unknown)))}.')
    if 'event' not in answer:
        raise PlacerError(f'placer {name!r} answered no event.')
    return Placement(
        event=answer['event'],
        tenant=_ref(answer.get('tenant')),
        subject=_ref(answer.get('subject')),
        context=answer.get('context'),
    )


def _ref(value: Any) -> Any:
    """`type:id` text as a pair (anything else is checked by `fire`)."""
    if isinstance(value, str) and ':' in value:
        kind, _colon, ident = value.partition(':')
        return (kind, ident)
    return value
