"""How deep one answer about a trace goes: the tree down to `MAX_TREE_DEPTH` levels.

A run nested in a run nested in a run... could make a tree thousands of levels deep. JSON that deep
is more than common readers take (pydantic and `jq` stop near 128 levels of nodes, Python's `json`
near 500), so an answer stops at a run `MAX_TREE_DEPTH` levels or more below the node asked for:
that run is shown without what ran inside it, `hidden` says how many nodes that is, and the trace
of that run (`GET /api/traces/{its id}`, `synapse traces show ID`) goes on from there. Everything
here walks the tree with a stack, never by recursion.
"""

from __future__ import annotations

from typing import Any

MAX_TREE_DEPTH = 64
"""Levels of nodes below the top of an answer before a run is shown without its children (a run,
a tool call under it and a run started in that tool are two levels)."""


def _size(nodes: list[dict[str, Any]]) -> int:
    """How many nodes `nodes` and everything under them hold."""
    count = 0
    stack = list(nodes)
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node['children'])
    return count


def trimmed(root: dict[str, Any], limit: int = MAX_TREE_DEPTH) -> dict[str, Any]:
    """`root` (a tree from `read.tree`) with the children of every run `limit` levels or more below
    it left out and counted in its `hidden`; the nodes are changed in place."""
    stack: list[tuple[dict[str, Any], int]] = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if level >= limit and node['kind'] == 'run' and node['children']:
            node['hidden'] = _size(node['children'])
            node['children'] = []
            continue
        stack.extend((child, level + 1) for child in node['children'])
    return root
