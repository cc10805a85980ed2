"""`Retrieval(sources=[...])`: a search tool over the agent's allowed document sources, with citations.

    from synapse_agents.capabilities import Retrieval

    agent = Agent(model, instructions='Answer from the handbook.', capabilities=[Retrieval(sources=['hr'])])

The agent gets one tool, `search_documents(query, k)`, that searches the named sources only (slugs;
sources a run's tenant may not see are out of reach: a source with a tenant is seen only by that
tenant's conversations). Its result is `{"results": [...]}`, each with the chunk's text, its score
and its citation (source, file, page, heading, chunk i of n, and the chunk id that opens it); the
playground renders the citations under the answer, and the prompt breakdown counts the returned text
as its own block (`retrieved`). Each query embedding is a ledger row (module `rag`).

A configured agent's `rag_sources` give its turns a `Retrieval` over those sources (`turns`). Inside
a Synapse turn it uses the turn's store and settings; an app running the agent itself builds it with
`Retrieval.of(synapse, sources=[...])` or `Retrieval.at(database_url, sources=[...])`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from ..errors import RetrievalUnavailable, SourceInvalid, SourceNotFound
from ..scope import Scope
from ..settings import Settings
from ..store import Store
from ..store.in_turn import in_turn
from .search import MAX_K, search

SEARCH_TOOL = 'search_documents'
"""The tool's name (the playground and the prompt breakdown find its results by it)."""
MAX_TEXT = 4000
"""The most characters of one chunk's text a result carries."""
NOT_IN_A_TURN = (
    'Retrieval() searches the sources of a Synapse database: run the agent through Synapse (synapse '
    'serve, Synapse().conversation(...), a task), or build it with Retrieval.of(synapse, ...) or '
    'Retrieval.at(database_url, ...).'
)


@dataclass(eq=False)
class RetrievalCapability(AbstractCapability[Any]):
    """See the module docstring."""

    sources: Sequence[str] = ()
    """The slugs of the sources the agent may search."""
    k: int = 5
    """How many chunks a search returns unless the model asks for another number (at most 20)."""
    store: Store | None = None
    settings: Settings | None = None
    _toolset: FunctionToolset[Any] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.sources, str):
            self.sources = (self.sources,)
        slugs = tuple(s.strip() for s in self.sources if isinstance(s, str) and s.strip())
        if not slugs or len(slugs) != len(self.sources):
            raise ValueError(f'Retrieval: sources must be one or more source slugs, not {self.sources!r}')
        self.sources = tuple(dict.fromkeys(slugs))
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k <= 20:
            raise ValueError(f'Retrieval: k must be a whole number from 1 to 20, not {self.k!r}')

    def get_toolset(self) -> AbstractToolset[Any] | None:
        if self._toolset is None:
            toolset: FunctionToolset[Any] = FunctionToolset()
            toolset.add_function(self.search_documents, name=SEARCH_TOOL)
            self._toolset = toolset
        return self._toolset

    async def search_documents(
        self, ctx: RunContext[Any], query: str, k: int | None = None
    ) -> dict[str, Any] | str:
        """Search the documents you have access to for passages about `query`, and cite them.

        Args:
            query: What you are looking for, in words (a question or the key terms).
            k: How many passages to return (1 to 20; default a handful).
        """
        store, settings = self._where()
        scope = Scope.of(ctx)
        wanted = self.k if k is None else max(1, min(int(k), 20, MAX_K))
        try:
            answer = await search(
                store,
                settings,
                query,
                sources=self.sources,
                tenant=scope.label('tenant'),
                k=wanted,
                user=scope.label('actor'),
            )
        except (SourceInvalid, SourceNotFound) as exc:
            return f'Not searched: {exc}'
        return {
            'ranked_by': answer.ranked_by,
            'results': [
                {
                    'chunk_id': hit.chunk.id,
                    **hit.as_json()['chunk']['citation'],
                    'score': hit.score,
                    'text': hit.chunk.content[:MAX_TEXT],
                }
                for hit in answer.results
            ],
        }

    def _where(self) -> tuple[Store, Settings]:
        turn = in_turn()
        store = self.store or (turn.store if turn is not None else None)
        if store is None:
            raise RetrievalUnavailable(NOT_IN_A_TURN)
        settings = self.settings or (turn.settings if turn is not None else Settings())
        return store, settings


def has_retrieval(agent: Agent[Any, Any], options: dict[str, Any]) -> bool:
    """Whether a run of `agent` with these options has a `Retrieval` (passed to it, or the agent's own)."""
    if any(isinstance(c, RetrievalCapability) for c in options.get('capabilities') or ()):
        return True
    found: list[AbstractCapability[Any]] = []
    agent.root_capability.apply(lambda c: found.append(c) if isinstance(c, RetrievalCapability) else None)
    return bool(found)
