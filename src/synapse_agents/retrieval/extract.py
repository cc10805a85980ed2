"""The text of a document, in sections: a PDF's pages, the parts of Markdown, HTML and DOCX under their
headings, or a plain text file whole.

`extract(name, data)` picks the parser by the suffix of `name` (one of `SUPPORTED`) and answers the
sections that hold text, in document order, each with its 1-based page (PDF) or its heading path
(`"Install > On Linux"`). A file that cannot be read raises `DocumentUnreadable` naming the file and
why; nothing here touches the disk or the network.

Parsers: pypdf (PDF), markdown-it-py (Markdown, CommonMark with tables), selectolax's Lexbor engine
(HTML: scripts, styles, navigation and other non-content elements are dropped) and python-docx (DOCX:
paragraphs and tables, sections at the `Heading N` and `Title` styles). Plain text, reStructuredText,
CSV and JSON are decoded as UTF-8 (a UTF-8 or UTF-16 byte order mark is honoured), falling back to
Latin-1.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

import docx
import pypdf
from docx.document import Document as DocxDocument
from docx.table import Table as DocxTable
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pypdf.errors import FileNotDecryptedError, PdfReadError
from selectolax.lexbor import LexborHTMLParser, LexborNode

from ..errors import DocumentUnreadable

SUPPORTED = ('.pdf', '.md', '.markdown', '.html', '.htm', '.docx', '.txt', '.text', '.rst', '.csv', '.json')
"""The file suffixes `extract` reads (compared without regard to case)."""

HEADING_SEPARATOR = ' > '


@dataclass(frozen=True)
class Section:
    """A run of a document's text: its page (1-based, PDF only) and its heading path, when known."""

    text: str
    page: int | None = None
    heading: str | None = None


def extract(name: str, data: bytes) -> list[Section]:
    """The sections of the file `name` whose bytes are `data`, in document order; only sections
    with text. Raises `DocumentUnreadable` (naming `name`) when the type is not supported, the file
    is damaged or encrypted, or it holds no text at all."""
    suffix = PurePosixPath(name.replace('\\', '/')).suffix.lower()
    reader = _READERS.get(suffix)
    if reader is None:
        problem = f'the type {suffix!r} is not supported' if suffix else 'no suffix names its type'
        raise DocumentUnreadable(f'{name}: {problem} (supported: {", ".join(SUPPORTED)})')
    try:
        sections = [_tidied(section) for section in reader(name, data)]
    except DocumentUnreadable:
        raise
    except Exception as exc:  # a parser's own error on a damaged file: that file fails, not the run
        raise DocumentUnreadable(f'{name}: cannot be read as {suffix[1:].upper()}: {_reason(exc)}') from exc
    sections = [section for section in sections if section.text]
    if not sections:
        raise DocumentUnreadable(f'{name}: no text found{_EMPTY_HINTS.get(suffix, "")}')
    return sections


_EMPTY_HINTS = {'.pdf': ' (a scanned PDF holds images of its pages, not text)'}


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return f'{type(exc).__name__}: {text}' if text else type(exc).__name__


_BLANK_LINES = re.compile(r'\n(?:[ \t\f\v\r]*\n)+')
_TRAILING_SPACE = re.compile(r'[ \t\f\v\r]+\n')


def _tidied(section: Section) -> Section:
    """The section with Windows line ends, trailing spaces and runs of blank lines tidied."""
    text = section.text.replace('\r\n', '\n').replace('\x00', '')
    text = _BLANK_LINES.sub('\n\n', _TRAILING_SPACE.sub('\n', text)).strip()
    return Section(text, section.page, section.heading)


# -- plain text --------------------------------------------------------------------------------


def decode_text(data: bytes) -> str:
    """`data` as text: UTF-8 (or UTF-16 with its byte order mark), else Latin-1 (which reads any
    bytes)."""
    if data.startswith((b'\xff\xfe', b'\xfe\xff')):
        try:
            return data.decode('utf-16')
        except UnicodeDecodeError:
            pass
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError:
        return data.decode('latin-1')


def _plain(name: str, data: bytes) -> Iterator[Section]:
    text = decode_text(data)
    if '\x00' in text:
        raise DocumentUnreadable(f'{name}: holds binary data (NUL bytes), not text')
    yield Section(text)


# -- PDF ---------------------------------------------------------------------------------------


def _pdf(name: str, data: bytes) -> Iterator[Section]:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
    except PdfReadError as exc:
        raise DocumentUnreadable(f'{name}: not a readable PDF ({exc})') from exc
    if reader.is_encrypted:
        # Many PDFs are encrypted with an empty user password (only copying is restricted): those
        # open; one that needs a password does not.
        try:
            opened = reader.decrypt('')
        except (FileNotDecryptedError, NotImplementedError) as exc:
            raise DocumentUnreadable(f'{name}: the PDF is encrypted and cannot be opened ({exc})') from exc
        if not opened:
            raise DocumentUnreadable(f'{name}: the PDF is encrypted with a password')
    for number, page in enumerate(reader.pages, start=1):
        yield Section(page.extract_text() or '', page=number)


# -- Markdown ----------------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r'\A---[ \t]*\r?\n.*?\r?\n---[ \t]*(?:\r?\n|\Z)', re.DOTALL)


class _Outline:
    """Sections under a heading path being built: blocks of text, flushed at each heading."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.path: list[tuple[int, str]] = []
        self.blocks: list[str] = []

    def add(self, text: str) -> None:
        if text.strip():
            self.blocks.append(text.strip('\n'))

    def heading(self, level: int, text: str) -> None:
        self.flush()
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        title = ' '.join(text.split())
        if title:
            self.path.append((level, title))

    def flush(self) -> None:
        if self.blocks:
            heading = HEADING_SEPARATOR.join(title for _, title in self.path) or None
            self.sections.append(Section('\n\n'.join(self.blocks), heading=heading))
        self.blocks = []


def _inline_text(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ('text', 'code_inline', 'html_inline'):
            parts.append(child.content)
        elif child.type in ('softbreak', 'hardbreak'):
            parts.append('\n')
        elif child.type == 'image':
            parts.append(child.content)  # the alt text
    return ''.join(parts)


def _markdown(name: str, data: bytes) -> Iterator[Section]:
    source = _FRONT_MATTER.sub('', decode_text(data), count=1)
    tokens = MarkdownIt('commonmark').enable(['table', 'strikethrough']).parse(source)
    outline = _Outline()
    row: list[str] | None = None
    rows: list[str] = []
    item_start = False
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == 'heading_open':
            outline.heading(int(token.tag[1]), _inline_text(tokens[index + 1]))
        elif kind == 'inline':
            if tokens[index - 1].type == 'heading_open':
                continue
            text = _inline_text(token)
            if row is not None:
                row.append(' '.join(text.split()))
            else:
                outline.add(f'- {text}' if item_start else text)
                item_start = False
        elif kind == 'list_item_open':
            item_start = True
        elif kind in ('fence', 'code_block'):
            outline.add(token.content)
        elif kind == 'html_block':
            outline.add(_html_text(token.content))
        elif kind == 'tr_open':
            row = []
        elif kind == 'tr_close' and row is not None:
            rows.append(' | '.join(row))
            row = None
        elif kind == 'table_close':
            outline.add('\n'.join(rows))
            rows = []
    outline.flush()
    yield from outline.sections


# -- HTML --------------------------------------------------------------------------------------

_DROPPED = ['script', 'style', 'nav', 'noscript', 'template', 'svg', 'iframe', 'object', 'head', 'form']
_HEADINGS = {f'h{level}': level for level in range(1, 7)}
_BLOCKS = frozenset(
    {
        'address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'dialog', 'div',
        'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'header', 'hr', 'li', 'main', 'ol', 'p',
        'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
    }
)  # fmt: skip
_SPACES = re.compile(r'\s+')


def _html_text(html: str) -> str:
    """The visible text of an HTML fragment (a Markdown file's raw HTML block), headings included."""
    outline = _Outline()
    _walk_html(html, outline, headings=False)
    outline.flush()
    return '\n\n'.join(section.text for section in outline.sections)


def _html(name: str, data: bytes) -> Iterator[Section]:
    outline = _Outline()
    _walk_html(decode_text(data), outline, headings=True)
    outline.flush()
    yield from outline.sections


def _walk_html(html: str, outline: _Outline, *, headings: bool) -> None:
    """Add the visible text of `html` to `outline` block by block, starting a section at each
    heading (`headings`) or keeping a heading's text as a block."""
    tree = LexborHTMLParser(html)
    tree.strip_tags(_DROPPED)
    root = tree.body or tree.root
    if root is None:
        return
    line: list[str] = []

    def end_block() -> None:
        text = _SPACES.sub(' ', ''.join(line)).strip()
        if text:
            outline.add(text)
        line.clear()

    # An explicit stack rather than recursion: a deeply nested page must not exhaust Python's.
    stack: list[tuple[LexborNode, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        tag = node.tag or ''
        if leaving:
            if tag in _BLOCKS:
                end_block()
            continue
        if tag == '-text':
            line.append(node.text_content or '')
            continue
        if tag in _HEADINGS or tag == 'pre':
            end_block()
            text = node.text(deep=True, separator=' ' if tag != 'pre' else '')
            if tag != 'pre' and headings:
                outline.heading(_HEADINGS[tag], text)
            else:
                outline.add(text if tag == 'pre' else _SPACES.sub(' ', text))
            continue
        if tag in _BLOCKS:
            end_block()
        stack.append((node, True))
        children = list(node.iter(include_text=True))
        stack.extend((child, False) for child in reversed(children))
    end_block()


# -- DOCX --------------------------------------------------------------------------------------

_HEADING_STYLE = re.compile(r'^Heading (\d)$')


def _docx_level(style_name: str | None) -> int | None:
    if style_name == 'Title':
        return 1
    match = _HEADING_STYLE.match(style_name or '')
    return int(match.group(1)) + 1 if match else None


def _docx(name: str, data: bytes) -> Iterator[Section]:
    try:
        document: DocxDocument = docx.Document(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise DocumentUnreadable(
            f'{name}: not a readable DOCX file (a damaged zip archive, a password-protected document, '
            'or another format under a .docx name)'
        ) from exc
    except KeyError as exc:
        raise DocumentUnreadable(f'{name}: a zip archive that is not a Word document ({exc})') from exc
    outline = _Outline()
    for block in document.iter_inner_content():
        if isinstance(block, DocxTable):
            rows = [' | '.join(cell.text.strip() for cell in row.cells) for row in block.rows]
            outline.add('\n'.join(row for row in rows if row.strip(' |')))
            continue
        level = _docx_level(block.style.name if block.style is not None else None)
        if level is not None and block.text.strip():
            outline.heading(level, block.text)
        else:
            outline.add(block.text)
    outline.flush()
    yield from outline.sections


_READERS: dict[str, Callable[[str, bytes], Iterator[Section]]] = {
    '.pdf': _pdf,
    '.md': _markdown,
    '.markdown': _markdown,
    '.html': _html,
    '.htm': _html,
    '.docx': _docx,
    **dict.fromkeys(('.txt', '.text', '.rst', '.csv', '.json'), _plain),
}
