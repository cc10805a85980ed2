"""Slugs: a stable, URL-safe key per agent, made from where the agent is defined.

`app.agents.support` + `support_agent` → `app.agents.support.support-agent`: the module path, a dot,
then the attribute with underscores as hyphens. A spec file `agents/researcher.yaml` →
`agents.researcher.yaml`. Only `[A-Za-z0-9._-]` survive (anything else becomes `-`), so a slug is
safe in a URL path segment as it is. A slug is only ever looked up in the catalog; it is never
imported. When two agents would share one, they are ordered by (module, attribute) and every one
after the first gets `-2`, `-3`, ... so adding an agent never renames one that sorts before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_UNSAFE = re.compile(r'[^A-Za-z0-9._-]+')


def clean(text: str) -> str:
    """`text` reduced to slug characters (runs of others become one hyphen)."""
    return _UNSAFE.sub('-', text).strip('-.') or 'agent'


def module_slug(module: str, attribute: str) -> str:
    """The slug of the agent at `module.attribute`."""
    return f'{clean(module)}.{clean(attribute.replace("_", "-"))}'


def spec_slug(relative_path: str) -> str:
    """The slug of an agent spec file, from its path in the project (`a/b.yaml` → `a.b.yaml`)."""
    return clean(relative_path.replace('\\', '/').replace('/', '.'))


def assign(keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], str]:
    """Unique slugs for (module, attribute, base slug) triples, keyed by (module, attribute)."""
    result: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for module, attribute, base in sorted(keys):
        slug = base
        counter = 2
        while slug in taken:
            slug = f'{base}-{counter}'
            counter += 1
        taken.add(slug)
        result[(module, attribute)] = slug
    return result
