"""A scope's `type:id` key names one `(type, id)` pair: types hold no colon, ids may, and every
key is read back at its first colon (the ledger's `user` and `tenant`, limits, filters)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_agents.errors import InvalidScope, TaskError
from synapse_agents.scope import Scope
from synapse_agents.tasks.events import check_scope

parts = st.text(alphabet=st.sampled_from('ab:8x\u00e9'), min_size=1, max_size=6)
pairs = st.tuples(parts, parts)


def key_of(pair: tuple[str, str]) -> str | None:
    """The pair's key, or None when a scope refuses it."""
    try:
        return Scope(tenant=pair).label('tenant')
    except InvalidScope:
        return None


@given(pairs, pairs)
def test_distinct_pairs_never_share_a_key_and_each_key_reads_back(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    keys = key_of(first), key_of(second)
    for pair, key in zip((first, second), keys, strict=True):
        if key is not None:
            kind, _colon, ident = key.partition(':')
            assert (kind, ident) == pair
    if first != second and None not in keys:
        assert keys[0] != keys[1]


def test_the_two_pairs_that_once_shared_a_key() -> None:
    assert Scope(tenant=('org', '8:x')).label('tenant') == 'org:8:x'
    with pytest.raises(InvalidScope, match=r"tenant type: a type holds no ':'"):
        Scope(tenant=('org:8', 'x'))


@pytest.mark.parametrize('axis', ['tenant', 'actor', 'subject'])
def test_every_axis_refuses_a_type_with_a_colon(axis: str) -> None:
    with pytest.raises(InvalidScope, match=f"{axis} type: a type holds no ':'"):
        Scope(**{axis: ('a:b', 'c')})


def test_an_event_s_tenant_type_with_a_colon_is_a_422_naming_the_field() -> None:
    with pytest.raises(TaskError) as raised:
        check_scope(('org:8', 'x'), None)
    assert raised.value.status == 422
    assert "a type holds no ':'" in str(raised.value)
