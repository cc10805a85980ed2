"""The table registry: which aggregate owns each table, through which column, declared once.

Every table that belongs to an aggregate (a conversation and what hangs off it, ...) is declared
here by the module that defines it:

    register_table(Message, owner='conversation', key='conversation_id')

and deleting an aggregate (one, a batch for retention, all of them), the sweep of rows whose owner
is gone, `Store.counts()` and the `DeletionReport` are derived from those declarations, so a new
table (a feature package's, a plugin's) is one `register_table` call and nothing else. The
aggregate's own table is declared with `root=True` and its key is its id. A row whose key is NULL
belongs to no aggregate and is never deleted with one.

A table declared with `kept=True` names its owner but outlives it: the ledger (`llm_calls`) is the
books, so deleting a conversation, pruning, clearing and the sweep of orphans never remove its rows
(their key stays, naming an owner that is gone); it is counted and appears in every deletion report
with 0 rows removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, delete, exists, func, select

_CHUNK = 500
"""Ids per `IN (...)`: far below every driver's parameter limit."""


@dataclass(frozen=True)
class OwnedTable:
    """One table's declaration: its aggregate (`owner`) and the column naming the owner's id."""

    table: Table
    owner: str
    key: str
    root: bool = False
    kept: bool = False
    """Names its owner but is never deleted with it (the ledger)."""

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def column(self) -> Any:
        return self.table.c[self.key]


@dataclass
class DeletionReport:
    """What a delete removed: rows per registered table, and attachment files."""

    rows_by_table: dict[str, int] = field(default_factory=dict)
    files: int = 0
    bytes: int = 0
    conversation_ids: list[str] = field(default_factory=list, repr=False)

    def __iadd__(self, other: DeletionReport) -> DeletionReport:
        for name, count in other.rows_by_table.items():
            self.rows_by_table[name] = self.rows_by_table.get(name, 0) + count
        self.files += other.files
        self.bytes += other.bytes
        self.conversation_ids.extend(other.conversation_ids)
        return self

    def removed(self, table: str) -> int:
        """Rows removed from `table` (0 for a table this delete did not cover)."""
        return self.rows_by_table.get(table, 0)

    @property
    def rows(self) -> int:
        return sum(self.rows_by_table.values())

    @property
    def conversations(self) -> int:
        return self.removed('conversations')

    @property
    def messages(self) -> int:
        return self.removed('messages')

    @property
    def tool_invocations(self) -> int:
        return self.removed('tool_invocations')

    @property
    def llm_calls(self) -> int:
        return self.removed('llm_calls')

    def as_dict(self) -> dict[str, int]:
        """Rows per table, then `files` and `bytes`: what `DELETE /api/conversations/{id}` answers."""
        return {**self.rows_by_table, 'files': self.files, 'bytes': self.bytes}


class TableRegistry:
    """The declared tables, in the order they were registered."""

    def __init__(self, declarations: Iterable[OwnedTable] = ()) -> None:
        self._tables: dict[str, OwnedTable] = {}
        for declaration in declarations:
            self._add(declaration)

    def register(
        self, table: Any, *, owner: str, key: str, root: bool = False, kept: bool = False
    ) -> OwnedTable:
        """Declare `table` (a `Table` or a mapped class) as part of the `owner` aggregate, or with
        `kept=True` as naming it without ever being deleted with it.

        Declaring the same table again the same way is a no-op (a module imported twice); a
        different declaration for a registered name, a missing key column, a second root for
        one owner or a kept root is a `ValueError`.
        """
        if root and kept:
            raise ValueError('a root table is deleted with its aggregate: it cannot be kept')
        resolved = table if isinstance(table, Table) else getattr(table, '__table__', None)
        if not isinstance(resolved, Table):
            raise TypeError(f'not a table or a mapped class: {table!r}')
        if key not in resolved.c:
            raise ValueError(f'{resolved.name} has no column {key!r} to name its {owner}')
        return self._add(OwnedTable(resolved, owner, key, root, kept))

    def _add(self, declaration: OwnedTable) -> OwnedTable:
        known = self._tables.get(declaration.name)
        if known is not None:
            if known == declaration:
                return known
            raise ValueError(f'{declaration.name} is already registered (owner {known.owner!r})')
        if declaration.root and any(t.root and t.owner == declaration.owner for t in self):
            raise ValueError(f'the {declaration.owner} aggregate already has a root table')
        self._tables[declaration.name] = declaration
        return declaration

    def copy(self) -> TableRegistry:
        """An independent registry with the same declarations (to add tables without side effects)."""
        return TableRegistry(self)

    def __iter__(self) -> Iterator[OwnedTable]:
        return iter(list(self._tables.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._tables

    def root(self, owner: str) -> OwnedTable:
        for declaration in self:
            if declaration.root and declaration.owner == owner:
                return declaration
        raise LookupError(f'no root table is registered for {owner!r}')

    def members(self, owner: str) -> list[OwnedTable]:
        """The owner's tables deleted with it other than its root, newest declaration first (the
        order deletes run); kept tables are not members."""
        return [t for t in reversed(list(self)) if t.owner == owner and not t.root and not t.kept]

    def empty_report(self, owner: str | None = None) -> DeletionReport:
        """A report naming every registered table (of `owner`, when given) with nothing removed."""
        return DeletionReport(rows_by_table={t.name: 0 for t in self if owner is None or t.owner == owner})

    # -- what the declarations give ----------------------------------------------------

    def counts(self, connection: Connection) -> dict[str, int]:
        """Rows per registered table."""
        return {t.name: connection.scalar(select(func.count()).select_from(t.table)) or 0 for t in self}

    def delete_owned(self, connection: Connection, owner: str, ids: Sequence[str]) -> DeletionReport:
        """Delete the `owner` aggregates with these ids and every row of theirs, in `connection`'s
        transaction; `conversation_ids` lists the ids the database held."""
        report = self.empty_report(owner)
        root = self.root(owner)
        for start in range(0, len(ids), _CHUNK):
            chunk = list(ids[start : start + _CHUNK])
            found = list(connection.scalars(select(root.column).where(root.column.in_(chunk))))
            for member in self.members(owner):
                removed = _rowcount(connection.execute(delete(member.table).where(member.column.in_(chunk))))
                report.rows_by_table[member.name] += removed
            removed = _rowcount(connection.execute(delete(root.table).where(root.column.in_(chunk))))
            report.rows_by_table[root.name] += removed
            report.conversation_ids.extend(found)
        return report

    def delete_orphans(self, connection: Connection, owner: str) -> DeletionReport:
        """Delete rows that name an `owner` whose root row is gone (a crash between two writes)."""
        report = self.empty_report(owner)
        root = self.root(owner)
        for member in self.members(owner):
            alive = exists().where(root.column == member.column)
            statement = delete(member.table).where(member.column.is_not(None), ~alive)
            report.rows_by_table[member.name] += _rowcount(connection.execute(statement))
        return report


def _rowcount(result: Any) -> int:
    return int(getattr(result, 'rowcount', 0) or 0)


registry = TableRegistry()
"""The process's registry: Synapse's own tables and every feature's or plugin's."""


def register_table(table: Any, *, owner: str, key: str, root: bool = False, kept: bool = False) -> OwnedTable:
    """Declare a table of an aggregate in the process's registry (see `TableRegistry.register`).

    A feature package or a plugin calls this for each table it adds; deletes, counts and reports
    then cover the table with no other change.
    """
    return registry.register(table, owner=owner, key=key, root=root, kept=kept)
