"""Text out of PDF, Markdown, HTML, DOCX and plain files, in sections with pages and heading paths;
a file that cannot be read is refused with its name and the reason. The PDF and DOCX files are
written by the tests (fpdf2, python-docx)."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from fpdf import FPDF

from synapse_agents.errors import DocumentUnreadable, SynapseError
from synapse_agents.retrieval.extract import SUPPORTED, Section, extract


def pdf_bytes(
    pages: list[str], *, user_password: str | None = None, owner_password: str | None = None
) -> bytes:
    pdf = FPDF()
    if owner_password is not None:
        pdf.set_encryption(owner_password=owner_password, user_password=user_password or '')
    for text in pages:
        pdf.add_page()
        pdf.set_font('helvetica', size=12)
        if text:
            pdf.multi_cell(0, 10, text)
    return bytes(pdf.output())


def docx_bytes() -> bytes:
    document = docx.Document()
    document.add_heading('Field guide', 0)
    document.add_paragraph('Welcome to the guide.')
    document.add_heading('Owls', 1)
    document.add_paragraph('Owls hunt at night.')
    document.add_heading('Barn owls', 2)
    document.add_paragraph('Barn owls nest in barns.')
    table = document.add_table(rows=2, cols=2)
    for (row, column), text in {
        (0, 0): 'name',
        (0, 1): 'wingspan',
        (1, 0): 'barn owl',
        (1, 1): '1 m',
    }.items():
        table.cell(row, column).text = text
    document.add_heading('Badgers', 1)
    document.add_paragraph('Badgers dig setts.')
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def unreadable(name: str, data: bytes) -> str:
    with pytest.raises(DocumentUnreadable) as caught:
        extract(name, data)
    assert isinstance(caught.value, SynapseError)
    message = str(caught.value)
    assert message.startswith(f'{name}: ')
    return message


# -- PDF ---------------------------------------------------------------------------------------


def test_a_pdf_gives_one_section_per_page_with_text_numbered_from_1() -> None:
    data = pdf_bytes(['Owls hunt at night.', '', 'Badgers dig setts.'])
    assert extract('guide.pdf', data) == [
        Section('Owls hunt at night.', page=1),
        Section('Badgers dig setts.', page=3),
    ]


def test_a_pdf_encrypted_with_an_empty_user_password_is_read() -> None:
    data = pdf_bytes(['Readable by anyone.'], owner_password='owner')
    assert extract('open.pdf', data) == [Section('Readable by anyone.', page=1)]


def test_a_pdf_that_needs_a_password_is_refused() -> None:
    data = pdf_bytes(['Secret.'], owner_password='owner', user_password='secret')
    assert 'encrypted with a password' in unreadable('locked.pdf', data)


@pytest.mark.parametrize('data', [b'not a pdf at all', b'%PDF-1.4\n1 0 obj garbage', b''])
def test_a_damaged_pdf_is_refused(data: bytes) -> None:
    assert 'not a readable PDF' in unreadable('broken.pdf', data)


def test_a_truncated_pdf_is_refused() -> None:
    data = pdf_bytes(['Owls hunt at night.'])
    assert 'PDF' in unreadable('cut.pdf', data[: len(data) // 2])


def test_a_pdf_without_text_is_refused_with_a_hint() -> None:
    assert 'no text found (a scanned PDF' in unreadable('scan.pdf', pdf_bytes(['', '']))


# -- Markdown ----------------------------------------------------------------------------------

MARKDOWN = b"""---
title: front matter is not text
---
Before any heading.

# Guide

Owls *hunt* at `night`.

## Install

- first step
- second step

| tool | use |
|------|-----|
| pip  | get |

```sh
pip install owls
```

### On Linux

Use apt.

## Usage

Run it.

# Appendix

<div>raw <b>html</b></div>
"""


def test_markdown_is_cut_at_headings_with_the_heading_path() -> None:
    assert extract('guide.md', MARKDOWN) == [
        Section('Before any heading.'),
        Section('Owls hunt at night.', heading='Guide'),
        Section(
            '- first step\n\n- second step\n\ntool | use\npip | get\n\npip install owls',
            heading='Guide > Install',
        ),
        Section('Use apt.', heading='Guide > Install > On Linux'),
        Section('Run it.', heading='Guide > Usage'),
        Section('raw html', heading='Appendix'),
    ]


def test_a_markdown_heading_with_nothing_under_it_gives_no_section() -> None:
    assert extract('notes.markdown', b'# Top\n\n## Empty\n\n## Full\n\ntext\n') == [
        Section('text', heading='Top > Full')
    ]


def test_markdown_with_only_headings_is_refused() -> None:
    assert 'no text found' in unreadable('empty.md', b'# Title\n\n## Sub\n')


# -- HTML --------------------------------------------------------------------------------------

HTML = b"""<!doctype html>
<html><head><title>Page</title><style>body { color: red }</style>
<script>var secret = 'not text';</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<p>Intro line.</p>
<h1>Owls</h1>
<p>Owls <em>hunt</em> at night.</p>
<script>track('visitor')</script>
<div>In a div<p>and a paragraph</p></div>
<h2>Barn <span>owls</span></h2>
<ul><li>white face</li><li>silent flight</li></ul>
<pre>  indented
  code</pre>
<h1>Badgers</h1>
<noscript>enable scripts</noscript>
<p>Badgers dig setts &amp; tunnels.</p>
</body></html>"""


def test_html_drops_scripts_styles_and_navigation_and_is_cut_at_headings() -> None:
    assert extract('page.html', HTML) == [
        Section('Intro line.'),
        Section('Owls hunt at night.\n\nIn a div\n\nand a paragraph', heading='Owls'),
        Section('white face\n\nsilent flight\n\n  indented\n  code', heading='Owls > Barn owls'),
        Section('Badgers dig setts & tunnels.', heading='Badgers'),
    ]


def test_a_deeply_nested_page_is_read_without_recursion() -> None:
    data = b'<html><body>' + b'<div>' * 5000 + b'deep text' + b'</div>' * 5000 + b'</body></html>'
    assert extract('deep.htm', data) == [Section('deep text')]


def test_a_page_of_scripts_only_is_refused() -> None:
    assert 'no text found' in unreadable('app.html', b'<html><body><script>x()</script></body></html>')


# -- DOCX --------------------------------------------------------------------------------------


def test_docx_is_cut_at_heading_styles_and_keeps_tables() -> None:
    assert extract('guide.docx', docx_bytes()) == [
        Section('Welcome to the guide.', heading='Field guide'),
        Section('Owls hunt at night.', heading='Field guide > Owls'),
        Section(
            'Barn owls nest in barns.\n\nname | wingspan\nbarn owl | 1 m',
            heading='Field guide > Owls > Barn owls',
        ),
        Section('Badgers dig setts.', heading='Field guide > Badgers'),
    ]


@pytest.mark.parametrize('data', [b'PK\x03\x04 damaged', b'plain words', b''])
def test_a_damaged_docx_is_refused(data: bytes) -> None:
    assert 'not a readable DOCX file' in unreadable('report.docx', data)


def test_a_truncated_docx_is_refused() -> None:
    data = docx_bytes()
    assert 'DOCX' in unreadable('cut.docx', data[: len(data) // 2])


def test_a_zip_that_is_not_a_word_document_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        archive.writestr('notes.txt', 'hello')
    assert 'not a Word document' in unreadable('notes.docx', buffer.getvalue())


# -- plain text --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('name', 'data', 'text'),
    [
        ('a.txt', 'Café au lait'.encode(), 'Café au lait'),
        ('b.TXT', '\ufeffWith a byte order mark'.encode(), 'With a byte order mark'),
        ('c.text', 'Zwölf Boxkämpfer'.encode('utf-16'), 'Zwölf Boxkämpfer'),
        ('d.rst', 'caf\xe9'.encode('latin-1'), 'café'),
        ('e.csv', b'name,size\r\nowl,small\r\n', 'name,size\nowl,small'),
        ('f.json', b'{"owl": "hoot"}\n', '{"owl": "hoot"}'),
        ('g.txt', b'one\n\n\n\n   \ntwo   \n', 'one\n\ntwo'),
    ],
)
def test_plain_text_is_one_section_decoded_as_utf8_or_latin1(name: str, data: bytes, text: str) -> None:
    assert extract(name, data) == [Section(text)]


def test_binary_data_under_a_text_name_is_refused() -> None:
    assert 'binary data' in unreadable('blob.txt', b'\x00\x01\x02abc')


def test_whitespace_only_text_is_refused() -> None:
    assert 'no text found' in unreadable('blank.txt', b' \n\t\n ')


# -- types -------------------------------------------------------------------------------------


@pytest.mark.parametrize(('name', 'problem'), [('photo.png', "the type '.png'"), ('README', 'no suffix')])
def test_an_unsupported_type_is_refused_naming_the_supported_ones(name: str, problem: str) -> None:
    message = unreadable(name, b'data')
    assert problem in message
    assert all(suffix in message for suffix in SUPPORTED)


def test_the_suffix_is_read_without_regard_to_case_or_folders() -> None:
    assert extract('docs/Guide.MD', b'# Hi\n\nthere') == [Section('there', heading='Hi')]
