"""The corpus and question set of `bench_retrieval.py`: the King James Bible, one file per chapter.

The text comes from Debian's `bible-kjv` package (`apt-get install bible-kjv`: the `bible` program
and its compressed text, which the package's copyright file states is out of copyright since the
translation of 1611); nothing is fetched. `write_corpus` writes its 1,189 chapters as plain-text
files (`jonah/jonah-002.txt`: a title line, then one verse a line) into a folder a `folder` source
then indexes. `QUESTIONS` are questions a reader might ask in today's words, each with the chapters
that answer it (`Question.chapters`): a result counts when it comes from one of those files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

BOOKS: tuple[tuple[str, str], ...] = (
    ('Ge', 'Genesis'), ('Exo', 'Exodus'), ('Lev', 'Leviticus'), ('Num', 'Numbers'),
    ('Deu', 'Deuteronomy'), ('Josh', 'Joshua'), ('Jdgs', 'Judges'), ('Ruth', 'Ruth'),
    ('1Sm', '1 Samuel'), ('2Sm', '2 Samuel'), ('1Ki', '1 Kings'), ('2Ki', '2 Kings'),
    ('1Chr', '1 Chronicles'), ('2Chr', '2 Chronicles'), ('Ezra', 'Ezra'), ('Neh', 'Nehemiah'),
    ('Est', 'Esther'), ('Job', 'Job'), ('Psa', 'Psalms'), ('Prv', 'Proverbs'),
    ('Eccl', 'Ecclesiastes'), ('SSol', 'Song of Solomon'), ('Isa', 'Isaiah'), ('Jer', 'Jeremiah'),
    ('Lam', 'Lamentations'), ('Eze', 'Ezekiel'), ('Dan', 'Daniel'), ('Hos', 'Hosea'),
    ('Joel', 'Joel'), ('Amos', 'Amos'), ('Obad', 'Obadiah'), ('Jonah', 'Jonah'), ('Mic', 'Micah'),
    ('Nahum', 'Nahum'), ('Hab', 'Habakkuk'), ('Zep', 'Zephaniah'), ('Hag', 'Haggai'),
    ('Zec', 'Zechariah'), ('Mal', 'Malachi'), ('Mat', 'Matthew'), ('Mark', 'Mark'),
    ('Luke', 'Luke'), ('John', 'John'), ('Acts', 'Acts'), ('Rom', 'Romans'),
    ('1Cor', '1 Corinthians'), ('2Cor', '2 Corinthians'), ('Gal', 'Galatians'),
    ('Eph', 'Ephesians'), ('Phi', 'Philippians'), ('Col', 'Colossians'),
    ('1Th', '1 Thessalonians'), ('2Th', '2 Thessalonians'), ('1Tim', '1 Timothy'),
    ('2Tim', '2 Timothy'), ('Titus', 'Titus'), ('Phmn', 'Philemon'), ('Heb', 'Hebrews'),
    ('Jas', 'James'), ('1Pet', '1 Peter'), ('2Pet', '2 Peter'), ('1Jn', '1 John'),
    ('2Jn', '2 John'), ('3Jn', '3 John'), ('Jude', 'Jude'), ('Rev', 'Revelation'),
)  # fmt: skip
"""The `bible` program's abbreviation of each book, and its name, in order."""
_NAMES = dict(BOOKS)
_VERSE = re.compile(r'^(\d?[A-Za-z]+)(\d+):(\d+) (.*)$')


def slug(book: str) -> str:
    """The folder and file prefix of a book: `1 Samuel` -> `1-samuel`."""
    return book.lower().replace(' ', '-')


def chapter_file(book: str, chapter: int) -> str:
    """The path of a chapter's file inside the corpus folder (the folder source's identifier)."""
    return f'{slug(book)}/{slug(book)}-{chapter:03d}.txt'


def bible_program() -> str | None:
    """The `bible` program of Debian's `bible-kjv` package, or None when it is not installed."""
    return shutil.which('bible')


def read_bible() -> dict[tuple[str, int], list[tuple[int, str]]]:
    """(book, chapter) -> its verses (number, text), in order, from the `bible` program."""
    program = bible_program()
    if program is None:
        raise RuntimeError('the `bible` program is missing: apt-get install bible-kjv')
    output = subprocess.run(
        [program, '-f', 'Gen1:1-Rev22:21'], check=True, capture_output=True, text=True
    ).stdout
    chapters: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for line in output.splitlines():
        found = _VERSE.match(line)
        if found is None:
            continue
        abbreviation, chapter, verse, text = found.groups()
        chapters.setdefault((_NAMES[abbreviation], int(chapter)), []).append((int(verse), text))
    return chapters


def write_corpus(folder: Path, books: int | None = None) -> tuple[int, int]:
    """The chapters (of the first `books` books, or all) as files under `folder`: (files, bytes)."""
    wanted = {name for _, name in BOOKS[:books]} if books else set(_NAMES.values())
    files = size = 0
    for (book, chapter), verses in read_bible().items():
        if book not in wanted:
            continue
        path = folder / chapter_file(book, chapter)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f'{book}, chapter {chapter}', '', *(f'{chapter}:{n} {text}' for n, text in verses)]
        data = ('\n'.join(lines) + '\n').encode()
        path.write_bytes(data)
        files, size = files + 1, size + len(data)
    return files, size


@dataclass(frozen=True)
class Question:
    """A question, and the chapters whose text answers it."""

    text: str
    chapters: tuple[tuple[str, int], ...]

    def files(self) -> set[str]:
        """The corpus files that answer it."""
        return {chapter_file(book, chapter) for book, chapter in self.chapters}


QUESTIONS: tuple[Question, ...] = (
    Question('How was the world made in six days?', (('Genesis', 1),)),
    Question('Who tempted the first woman to eat the forbidden fruit?', (('Genesis', 3),)),
    Question('Which brother murdered his brother out of jealousy over an offering?', (('Genesis', 4),)),
    Question('Why did God send a flood, and who was told to build a boat?', (('Genesis', 6), ('Genesis', 7))),
    Question(
        'Why do people speak different languages? The tower that reached to the sky', (('Genesis', 11),)
    ),
    Question('Whose wife looked back and turned into a pillar of salt?', (('Genesis', 19),)),
    Question('A father told to offer his son as a sacrifice on a mountain', (('Genesis', 22),)),
    Question('Dream of a stairway to heaven with angels going up and down', (('Genesis', 28),)),
    Question('Brothers sell their younger brother with the colourful coat to traders', (('Genesis', 37),)),
    Question('God speaks to Moses from a bush that burns but is not burnt up', (('Exodus', 3),)),
    Question('Blood of a lamb painted on the door frames so that death passes over', (('Exodus', 12),)),
    Question('The sea splits so the Israelites can cross on dry land', (('Exodus', 14),)),
    Question('Bread that fell from the sky every morning in the desert', (('Exodus', 16), ('Numbers', 11))),
    Question(
        'The ten commandments: no other gods, honour your parents, do not steal',
        (('Exodus', 20), ('Deuteronomy', 5)),
    ),
    Question('The people make a golden statue of a calf to worship', (('Exodus', 32),)),
    Question('City walls collapse after the army marches around them blowing trumpets', (('Joshua', 6),)),
    Question('A strong man loses his strength when his hair is cut', (('Judges', 16),)),
    Question(
        'A widow tells her mother-in-law: where you go I will go, your people will be my people',
        (('Ruth', 1),),
    ),
    Question('A shepherd boy kills a giant with a sling and a stone', (('1 Samuel', 17),)),
    Question(
        'A king settles a dispute between two mothers by offering to cut the baby in two', (('1 Kings', 3),)
    ),
    Question(
        'Contest with the prophets of Baal: fire comes down from heaven on the altar', (('1 Kings', 18),)
    ),
    Question('A prophet is carried up to heaven in a whirlwind by a chariot of fire', (('2 Kings', 2),)),
    Question(
        'Rebuilding the walls of Jerusalem while enemies mock and threaten the workers',
        (('Nehemiah', 2), ('Nehemiah', 4), ('Nehemiah', 6)),
    ),
    Question(
        'A queen risks her life going to the king uninvited to save her people',
        (('Esther', 4), ('Esther', 5)),
    ),
    Question('A righteous man loses his children and all his wealth yet does not blame God', (('Job', 1),)),
    Question('The Lord is my shepherd, I have everything I need', (('Psalms', 23),)),
    Question('What makes a good wife? One worth more than jewels', (('Proverbs', 31),)),
    Question(
        'There is a right time for everything: to be born, to die, to plant, to harvest',
        (('Ecclesiastes', 3),),
    ),
    Question(
        'Nations will turn their weapons into farming tools and stop making war',
        (('Isaiah', 2), ('Micah', 4)),
    ),
    Question('A servant who suffers and is wounded for the sins of others', (('Isaiah', 53),)),
    Question('A vision of a valley full of dry bones coming back to life', (('Ezekiel', 37),)),
    Question('Three young men thrown into a blazing furnace survive unharmed', (('Daniel', 3),)),
    Question('A mysterious hand writes on the wall during a royal banquet', (('Daniel', 5),)),
    Question('A man thrown into a pit of lions for praying is not hurt', (('Daniel', 6),)),
    Question(
        'Which prophet ran away from God on a ship and was swallowed by a big fish?',
        (('Jonah', 1), ('Jonah', 2)),
    ),
    Question('Astrologers from the east follow a star to find a newborn king', (('Matthew', 2),)),
    Question('Blessed are the poor in spirit, the meek and the peacemakers', (('Matthew', 5),)),
    Question(
        'How should we pray? Our Father in heaven, give us our daily bread', (('Matthew', 6), ('Luke', 11))
    ),
    Question(
        'Jesus walks on the lake at night and Peter tries to walk to him',
        (('Matthew', 14), ('Mark', 6), ('John', 6)),
    ),
    Question(
        'Thousands of people fed with five loaves and two fish',
        (('Matthew', 14), ('Mark', 6), ('Luke', 9), ('John', 6)),
    ),
    Question('A baby born and laid in a feeding trough because there was no room at the inn', (('Luke', 2),)),
    Question('Who is my neighbour? A traveller beaten by robbers is helped by a stranger', (('Luke', 10),)),
    Question('A son wastes his inheritance and his father welcomes him home with a feast', (('Luke', 15),)),
    Question('Water turned into wine at a wedding', (('John', 2),)),
    Question('A man dead for four days is called out of his tomb', (('John', 11),)),
    Question(
        'The disciples speak in other languages when the Spirit comes like tongues of fire', (('Acts', 2),)
    ),
    Question('A persecutor is blinded by a light from heaven on the road to Damascus', (('Acts', 9),)),
    Question('Love is patient and kind; without love I am nothing', (('1 Corinthians', 13),)),
    Question(
        'Put on the whole armour of God: the shield of faith and the sword of the Spirit', (('Ephesians', 6),)
    ),
    Question(
        'What is faith? Being sure of what we hope for; examples of faithful people of old',
        (('Hebrews', 11),),
    ),
    Question(
        'A new heaven and a new earth where there are no more tears, death or pain', (('Revelation', 21),)
    ),
)
"""Questions in today's words (not the translation's), each with the chapters that answer it."""
