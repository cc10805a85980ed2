"""Placers: finding the callable the `placers` setting names, checking what it answers, and
`Synapse.placer(name)` as a signal receiver that fires what the placer says (or nothing)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from fixtures.projects import isolated_imports, unique_name, write_files
from synapse_agents import Synapse
from synapse_agents.errors import TaskError
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.tasks import standing_store
from synapse_agents.tasks.placers import Placement, PlacerError, load_placer, placement_of
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentTask

PLACERS = '''
calls = []


def file_uploaded(sender, instance, created=False, **kwargs):
    calls.append((sender, instance.id, created))
    if instance.organization_id is None:
        return None
    return {
        'event': 'file.uploaded',
        'tenant': f'org:{instance.organization_id}',
        'subject': ('case', str(instance.case_id)),
        'context': {'file_id': instance.id, 'created': created},
    }


class Stamped:
    """A placer class: its instances are called."""

    def __call__(self, sender, **kwargs):
        return {'event': 'stamp.made', 'context': {'sender': sender}}


class Holder:
    @staticmethod
    def placer(sender, **kwargs):
        return None


def bad_answer(sender, **kwargs):
    return ['file.uploaded']


def bad_event(sender, **kwargs):
    return {'event': 'not an event'}


NOT_CALLABLE = 42


class NeedsSettings:
    def __init__(self, settings):
        self.settings = settings

    def __call__(self, sender, **kwargs):
        return None
'''


@pytest.fixture
def placers(isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module of placers in the project folder, importable (sys.path restored afterwards)."""
    name = unique_name('placers')
    write_files(
        isolated_env,
        {
            f'{name}.py': PLACERS,
            f'{name}_broken.py': 'def placer(:\n',
            f'{name}_failing.py': 'raise RuntimeError("settings missing")\n',
        },
    )
    with isolated_imports(tmp_path):
        monkeypatch.syspath_prepend(str(isolated_env))
        yield name


def spec(module: str, attribute: str) -> dict[str, str]:
    return {'p': f'{module}:{attribute}'}


# -- load_placer ------------------------------------------------------------------------------------


def test_an_unknown_name_lists_the_configured_ones() -> None:
    with pytest.raises(PlacerError, match=r"No placer named 'x' in the placers setting \(configured: a, b\)"):
        load_placer('x', {'b': 'm:f', 'a': 'm:g'})
    with pytest.raises(PlacerError, match=r'\(configured: none\)'):
        load_placer('x', {})


@pytest.mark.parametrize('target', ['module', 'module:', ':callable', '', 'module.callable'])
def test_a_target_that_is_not_module_colon_callable_is_refused(target: str) -> None:
    with pytest.raises(PlacerError, match=r"placer 'p': .* is not module:callable"):
        load_placer('p', {'p': target})


@pytest.mark.parametrize(
    ('suffix', 'attribute', 'words'),
    [
        ('_missing_module', 'f', 'No module named'),
        ('', 'absent', "has no attribute 'absent'"),
        ('', 'Holder.absent', "has no attribute 'absent'"),
        ('_broken', 'placer', 'invalid syntax'),
        ('_failing', 'placer', 'settings missing'),
    ],
)
def test_a_placer_that_cannot_be_imported_says_why(
    placers: str, suffix: str, attribute: str, words: str
) -> None:
    with pytest.raises(PlacerError) as caught:
        load_placer('p', spec(placers + suffix, attribute))
    message = str(caught.value)
    assert message.startswith(f"placer 'p': '{placers}{suffix}:{attribute}' could not be imported")
    assert words in message


def test_something_not_callable_is_refused(placers: str) -> None:
    with pytest.raises(PlacerError, match=r"placer 'p': '.*:NOT_CALLABLE' is not callable"):
        load_placer('p', spec(placers, 'NOT_CALLABLE'))


def test_a_class_that_needs_arguments_is_refused(placers: str) -> None:
    with pytest.raises(PlacerError) as caught:
        load_placer('p', spec(placers, 'NeedsSettings'))
    assert 'is a class that could not be made without arguments' in str(caught.value)
    assert "missing 1 required positional argument: 'settings'" in str(caught.value)


def test_functions_attributes_and_classes_are_placers(placers: str) -> None:
    function = load_placer('p', spec(placers, 'file_uploaded'))
    assert function.__name__ == 'file_uploaded'
    assert load_placer('p', spec(placers, 'Holder.placer'))('sender') is None
    stamped = load_placer('p', spec(placers, 'Stamped'))
    assert not isinstance(stamped, type)
    assert stamped('app') == {'event': 'stamp.made', 'context': {'sender': 'app'}}


# -- placement_of -----------------------------------------------------------------------------------


def test_nothing_answered_fires_nothing() -> None:
    assert placement_of(None, 'p') is None


def test_a_dict_answer_becomes_a_placement() -> None:
    placed = placement_of(
        {'event': 'file.uploaded', 'tenant': 'org:7', 'subject': ('case', '9'), 'context': {'a': 1}}, 'p'
    )
    assert placed == Placement('file.uploaded', ('org', '7'), ('case', '9'), {'a': 1})
    assert placement_of({'event': 'x'}, 'p') == Placement('x')
    # `type:id` text splits at the first colon; anything else is left for `fire` to check.
    assert placement_of({'event': 'x', 'subject': 'doc:a:b'}, 'p') == Placement('x', subject=('doc', 'a:b'))
    assert placement_of({'event': 'x', 'tenant': 'acme'}, 'p') == Placement('x', tenant='acme')  # type: ignore[arg-type]


def test_a_placement_is_taken_as_it_is() -> None:
    placed = Placement('file.uploaded', ('org', '7'))
    assert placement_of(placed, 'p') is placed


@pytest.mark.parametrize(
    ('answer', 'words'),
    [
        (['file.uploaded'], "placer 'p' answered list: expected a dict with event"),
        ('file.uploaded', "placer 'p' answered str"),
        (True, "placer 'p' answered bool"),
        ({'event': 'x', 'tenant_id': '7', 'when': 1}, "placer 'p' answered unknown keys: tenant_id, when."),
        ({'tenant': 'org:7'}, "placer 'p' answered no event."),
        ({}, "placer 'p' answered no event."),
    ],
)
def test_an_answer_that_cannot_fire_is_refused(answer: Any, words: str) -> None:
    with pytest.raises(PlacerError) as caught:
        placement_of(answer, 'p')
    assert str(caught.value).startswith(words)


# -- Synapse.placer ---------------------------------------------------------------------------------


def tasks(store: Store) -> list[AgentTask]:
    with store.read() as session:
        return list(session.scalars(select(AgentTask).order_by(AgentTask.id)))


def listener(store: Store, event: str = 'file.uploaded', tenant: str | None = 'org:7') -> None:
    data = StandingInput(
        name='reader', agent='app.reader', instruction='Read it.', tenant=tenant, events=[event]
    )
    standing_store.create(store, data)


def upload(organization: str | None) -> SimpleNamespace:
    return SimpleNamespace(id='f-1', organization_id=organization, case_id=9)


@pytest.fixture
def synapse(database_url: str, placers: str, store: Store) -> Iterator[Synapse]:
    """A Synapse on the test's database whose `placers` setting names the module's placers."""
    named = {
        'uploaded': f'{placers}:file_uploaded',
        'stamp': f'{placers}:Stamped',
        'bad_answer': f'{placers}:bad_answer',
        'bad_event': f'{placers}:bad_event',
    }
    syn = Synapse(settings=load_settings({'database_url': database_url, 'placers': named}))
    yield syn
    syn.close_sync()


def test_a_placer_receiver_fires_what_the_placer_answers(
    synapse: Synapse, store: Store, placers: str
) -> None:
    listener(store)
    receive = synapse.placer('uploaded')
    assert receive.__name__ == 'synapse_placer_uploaded'
    fired = receive('File', instance=upload('7'), created=True)
    assert fired is not None and fired.event == 'file.uploaded'
    (task,) = tasks(store)
    assert fired.queued == [task.id]
    assert (task.tenant_type, task.tenant_id, task.subject_key) == ('org', '7', 'case:9')
    assert task.trigger == 'event' and task.context == {'file_id': 'f-1', 'created': True}
    module = __import__(placers)
    assert module.calls == [('File', 'f-1', True)]


def test_a_placer_answering_none_fires_nothing(synapse: Synapse, store: Store) -> None:
    listener(store)
    assert synapse.placer('uploaded')('File', instance=upload(None)) is None
    assert tasks(store) == []


def test_a_class_placer_fires_too(synapse: Synapse, store: Store) -> None:
    listener(store, 'stamp.made', tenant=None)
    fired = synapse.placer('stamp')('app')
    assert fired is not None and len(fired.queued) == 1
    assert tasks(store)[0].context == {'sender': 'app'}


def test_a_bad_answer_or_event_raises_and_stores_nothing(synapse: Synapse, store: Store) -> None:
    listener(store)
    with pytest.raises(PlacerError, match='answered list'):
        synapse.placer('bad_answer')('File')
    with pytest.raises(TaskError) as caught:
        synapse.placer('bad_event')('File')
    assert caught.value.status == 422 and 'is not an event name' in caught.value.message
    assert tasks(store) == []


def test_an_unknown_placer_is_refused_when_wired(synapse: Synapse) -> None:
    with pytest.raises(
        PlacerError, match=r"No placer named 'typo' .*configured: bad_answer, bad_event, stamp"
    ):
        synapse.placer('typo')


def test_the_placers_setting_comes_from_the_environment(
    database_url: str, placers: str, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_PLACERS', json.dumps({'uploaded': f'{placers}:file_uploaded'}))
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', database_url)
    listener(store)
    syn = Synapse()
    try:
        fired = syn.placer('uploaded')('File', instance=upload('7'))
        assert fired is not None and len(fired.queued) == 1
    finally:
        syn.close_sync()
    assert [t.tenant_id for t in tasks(store)] == ['7']
