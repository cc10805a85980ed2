"""Dashboard weight and render times in headless Chromium.

- Size: every .js and .css file of the built dashboard (src/synapse_agents/web/static/), raw and
  gzipped (level 9, KB = 1024 bytes); target: the JS + CSS total at most 150 KB gzipped.
- Render: a real `synapse serve --demo` on a temporary SQLite store seeded by seed_history.py
  (N conversations plus the 60-message, 480-tool-call "replay benchmark" one), then with
  Playwright the wall time from `page.goto` until the 8 agent cards of `/agents` are on screen,
  and until all 60 messages of `/agents/{agent_key}/c/{id}` are (the seeded agent is not a demo
  agent: the thread then opens read-only, as from the history page). Cold runs use a fresh
  browser context each (empty HTTP cache, new connections); warm runs reload one context's page.

Next to the wall time it keeps the browser's own figures: DOMContentLoaded and the moment the
content appeared (`performance.now()`, from navigation start), and the bytes a cold load moved.

    python bench/bench_dashboard.py
    python bench/bench_dashboard.py --runs 20 --conversations 5000 --json /tmp/dashboard.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Response, sync_playwright
from sqlalchemy import select

from results import Result, write_json
from seed_history import REPLAY_TITLE, open_seeded
from serving import free_port, wait_until_up
from synapse_agents.conversations.tables import Conversation

STATIC = Path(__file__).resolve().parents[1] / 'src' / 'synapse_agents' / 'web' / 'static'
BUDGET_KB = 150
THREAD_MESSAGES = 60
CHROMIUM = '/usr/bin/chromium'
CHROMIUM_ARGS = [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync',
]  # fmt: skip
CARDS = '[data-testid="agent-card"]'
MESSAGES = '[data-testid="user-message"], [data-testid="assistant-message"]'
# Resolves (to the in-page time) once `n` elements match: the timing cannot be of an empty page.
RENDERED = '([selector, n]) => document.querySelectorAll(selector).length >= n && performance.now()'
NAVIGATION = """() => {
  const nav = performance.getEntriesByType('navigation')[0]
  const bytes = performance.getEntriesByType('resource').reduce((sum, r) => sum + r.transferSize, 0)
  return {dcl: nav.domContentLoadedEventEnd, bytes: bytes + nav.transferSize}
}"""


@dataclass
class Timings:
    wall: list[float] = field(default_factory=list)
    dcl: list[float] = field(default_factory=list)
    painted: list[float] = field(default_factory=list)
    wire_bytes: list[int] = field(default_factory=list)
    count: int = 0


def bundle_sizes() -> list[tuple[str, int, int]]:
    """(file, raw bytes, gzipped bytes) of every .js and .css file of the build, largest first."""
    files = sorted(p for p in STATIC.rglob('*') if p.suffix in {'.js', '.css'} and p.is_file())
    rows = [
        (str(p.relative_to(STATIC)), p.stat().st_size, len(gzip.compress(p.read_bytes(), 9))) for p in files
    ]
    return sorted(rows, key=lambda row: -row[2])


def seed(directory: Path, conversations: int) -> tuple[str, str, str]:
    """The seeded store's URL, and the replay conversation's agent key and id."""
    url = f'sqlite:///{directory / "bench.db"}'
    store, _seconds = open_seeded(url, conversations)
    try:
        with store.read() as session:
            row = session.execute(
                select(Conversation.agent_key, Conversation.id).where(Conversation.title == REPLAY_TITLE)
            ).one()
    finally:
        store.close()
    return url, row.agent_key, row.id


def start_server(home: Path, database_url: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`synapse serve --demo` in `home` (SQLite migrates itself), once /api/health answers."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith('SYNAPSE_')}
    env |= {'SYNAPSE_HOME': str(home), 'SYNAPSE_DATABASE_URL': database_url, 'PYTHONUNBUFFERED': '1'}
    with log.open('wb') as out:
        process = subprocess.Popen(
            [sys.executable, '-m', 'synapse_agents', 'serve', '--demo', '--port', str(port)],
            cwd=home,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return process, wait_until_up(process, f'http://127.0.0.1:{port}', log=log)


def listed_agents(url: str) -> int:
    """How many agents the server lists (`GET /api/agents`): the cards the agents page shows."""
    with urllib.request.urlopen(f'{url}/api/agents', timeout=30) as response:
        body = json.load(response)
    listed = body if isinstance(body, list) else next(v for v in body.values() if isinstance(v, list))
    return len(listed)


def measure(page: Page, url: str | None, selector: str, expected: int, into: Timings) -> None:
    """Time a navigation to `url` (a reload when None) until `expected` elements match `selector`."""
    started = time.perf_counter()
    if url is None:
        page.reload(wait_until='commit')
    else:
        page.goto(url, wait_until='commit')
    painted = page.wait_for_function(RENDERED, arg=[selector, expected], timeout=30_000).json_value()
    into.wall.append((time.perf_counter() - started) * 1000)
    into.count = page.locator(selector).count()
    if into.count != expected:  # more than expected: not the page this bench means to time
        raise RuntimeError(f'{selector}: {into.count} rendered, {expected} expected')
    figures = page.evaluate(NAVIGATION)
    into.dcl.append(figures['dcl'])
    into.painted.append(painted)
    into.wire_bytes.append(figures['bytes'])


def run_page(
    browser: Browser, url: str, selector: str, expected: int, runs: int, problems: set[str]
) -> tuple[Timings, Timings]:
    """Cold (a fresh context per run: cold cache) and warm (one context, reloaded), one warm-up each."""

    def open_page() -> tuple[BrowserContext, Page]:
        context = browser.new_context()
        page = context.new_page()

        def console(message: ConsoleMessage) -> None:
            if message.type == 'error':
                problems.add(f'console error: {message.text} ({page.url})')

        def response(answer: Response) -> None:
            if answer.status >= 400:
                problems.add(f'HTTP {answer.status} {answer.url}')

        page.on('console', console)
        page.on('pageerror', lambda error: problems.add(f'page error: {error} ({page.url})'))
        page.on('response', response)
        return context, page

    cold, warm = Timings(), Timings()
    for run in range(runs + 1):
        context, page = open_page()
        measure(page, url, selector, expected, cold if run else Timings())
        context.close()
    context, page = open_page()
    for run in range(runs + 1):  # the warm-up loads the page, the runs reload it
        measure(page, None if run else url, selector, expected, warm if run else Timings())
    context.close()
    return cold, warm


def note_of(timings: Timings, what: str) -> str:
    dcl, shown = statistics.median(timings.dcl), statistics.median(timings.painted)
    return (
        f'{timings.count} {what}; in browser (median): '
        f'DOMContentLoaded {dcl:.0f} ms, shown {shown:.0f} ms, '
        f'{statistics.median(timings.wire_bytes) / 1024:.0f} KB transferred'
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=10, help='timed runs per figure, after one warm-up')
    parser.add_argument(
        '--conversations', type=int, default=2000, help='seeded conversations besides the replay one'
    )
    parser.add_argument('--json', help='also write the results to this path')
    args = parser.parse_args()
    if args.runs < 1:
        parser.error('--runs must be at least 1')
    begun = time.perf_counter()

    sizes = bundle_sizes()
    if not sizes:
        print(f'no JS or CSS in {STATIC}: run `make frontend`', file=sys.stderr)
        return 1
    print(f'{"gzipped":>10} {"raw":>10}  file ({STATIC})')
    for name, raw, packed in sizes:
        print(f'{packed / 1024:7.1f} KB {raw / 1024:7.1f} KB  {name}')
    total_kb = sum(row[2] for row in sizes) / 1024
    size_ok = total_kb <= BUDGET_KB
    results = [
        Result.of('dashboard', 'JS + CSS gzipped', [total_kb], unit='KB', target=f'<= {BUDGET_KB} KB',
                  passed=size_ok, note=f'{len(sizes)} files, {sum(r[1] for r in sizes) / 1024:.1f} KB raw'),
    ]  # fmt: skip

    home = Path(tempfile.mkdtemp(prefix='synapse-bench-dashboard-'))
    problems: set[str] = set()
    process: subprocess.Popen[bytes] | None = None
    rendered = True
    try:
        started = time.perf_counter()
        database_url, agent_key, conversation_id = seed(home, args.conversations)
        seconds = time.perf_counter() - started
        print(f'store seeded in {seconds:.1f} s ({args.conversations:,} conversations + the replay one)')
        process, url = start_server(home, database_url, home / 'serve.log')
        thread_path = f'/agents/{agent_key}/c/{conversation_id}'
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                pages = [
                    ('agents page', '/agents', CARDS, listed_agents(url), 'agent cards'),
                    ('60-message thread', thread_path, MESSAGES, THREAD_MESSAGES, 'messages'),
                ]
                for name, path, selector, expected, what in pages:
                    try:
                        cold, warm = run_page(browser, url + path, selector, expected, args.runs, problems)
                    except Exception as error:  # a timeout or a wrong count: the page never rendered
                        print(f'{name}: did not render: {error}', file=sys.stderr)
                        rendered = False
                        continue
                    for label, timings in (('cold', cold), ('warm', warm)):
                        note = note_of(timings, what)
                        results.append(Result.of('dashboard', f'{name}, {label}', timings.wall, note=note))
            finally:
                browser.close()
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(home, ignore_errors=True)

    print(f'\n{"dashboard":<28} {"median":>9} {"p95":>9}  {"target":<12} {"ok":<4} note')
    for r in results:
        ok = '' if r.passed is None else ('yes' if r.passed else 'NO')
        p95 = f'{r.p95:9.1f}' if r.p95 is not None else ' ' * 9
        print(f'{r.name:<28} {r.median:9.1f} {p95}  {r.target:<12} {ok:<4} {r.unit}; {r.note}')
    for problem in sorted(problems):
        print(f'  seen: {problem}')
    seconds = time.perf_counter() - begun
    print(f'total {seconds:.0f} s; {args.runs} runs per figure (cold: a fresh context, empty cache, each)')
    write_json(args.json, results)
    return 0 if size_ok and rendered else 1


if __name__ == '__main__':
    sys.exit(main())
