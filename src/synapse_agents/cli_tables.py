"""Rich tables that fit the terminal they are printed in.

Rich shrinks every column evenly once a table is wider than the terminal, so ten columns in 80
characters become a character each. `fitted_table` decides instead: each column has a width it
is never squeezed below (`least`; a cell wider than its column wraps on spaces, a word longer
than it, such as an id, folds over lines and stays whole), the widest columns give way first (an id last),
and when even the narrowest layout does not fit, the columns marked droppable leave (the highest
`drop` first) and a caption names them. A wide terminal shows every column at its natural width.
Imports nothing of Synapse: every area's command-line tables use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

# A column's padding (one space each side) and the rule after it, plus the table's left edge.
PER_COLUMN = 3
EDGE = 1


@dataclass(frozen=True)
class Column:
    """One column: its header, the narrowest it may get, whether it may leave, its alignment."""

    header: str
    least: int = 10
    """The narrowest it is made: never below its header, nor below this unless all it holds is narrower."""
    drop: int = 0
    """0: always shown. Otherwise it leaves a terminal too narrow for it, the highest first."""
    right: bool = False
    last: bool = False
    """Narrowed only once every other column is at its narrowest (an id, kept on one line if it can be)."""


Cell = str | Text
"""Plain text (escaped when drawn), or a styled `Text`."""


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def _natural(column: Column, cells: list[Cell]) -> int:
    lines = [line for cell in cells for line in _plain(cell).splitlines()] or ['']
    return max(len(column.header), *(len(line) for line in lines))


def layout(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int
) -> tuple[list[int], list[int]]:
    """The indexes of the columns shown and each one's content width, for a terminal `width` wide."""
    natural = [_natural(column, [row[i] for row in rows]) for i, column in enumerate(columns)]
    floor = [max(len(column.header), min(natural[i], column.least)) for i, column in enumerate(columns)]
    kept = list(range(len(columns)))
    droppable = sorted((i for i, c in enumerate(columns) if c.drop), key=lambda i: -columns[i].drop)
    while droppable and sum(floor[i] for i in kept) + PER_COLUMN * len(kept) + EDGE > width:
        kept.remove(droppable.pop(0))
    room = width - PER_COLUMN * len(kept) - EDGE
    widths = {i: natural[i] for i in kept}
    # The widest column above its floor gives a character, until the table fits (or none can).
    for narrowed in ([i for i in kept if not columns[i].last], kept):
        while sum(widths.values()) > room:
            slack = [i for i in narrowed if widths[i] > floor[i]]
            if not slack:
                break
            widest = max(slack, key=lambda i: (widths[i], -i))
            widths[widest] -= 1
    # A folded id takes the fewest lines it must, in even lengths; the characters that frees go
    # back to the narrowest column cut below its natural width.
    for i in kept:
        if columns[i].last and 0 < widths[i] < natural[i]:
            widths[i] = max(floor[i], -(-natural[i] // -(-natural[i] // widths[i])))
    while sum(widths.values()) < room:
        short = [i for i in kept if widths[i] < natural[i] and not columns[i].last]
        if not short:
            break
        widths[min(short, key=lambda i: (widths[i], i))] += 1
    return kept, [widths[i] for i in kept]


def fitted_table(
    title: str | None,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int | None = None,
) -> Table:
    """`rows` (plain text escaped here, a `Text` as it is) in a table that fits `width` (the terminal's)."""
    kept, widths = layout(columns, rows, Console().width if width is None else width)
    left_out = [columns[i].header for i in range(len(columns)) if i not in kept]
    caption = f'Not shown at this width: {", ".join(left_out)} (a wider terminal shows them).'
    table = Table(title=title, caption=caption if left_out else None)
    for index, size in zip(kept, widths, strict=True):
        column = columns[index]
        table.add_column(
            column.header, width=size, overflow='fold', justify='right' if column.right else 'left'
        )
    for row in rows:
        table.add_row(*(cell if isinstance(cell := row[i], Text) else escape(cell) for i in kept))
    return table
