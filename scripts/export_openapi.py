"""Write the app's OpenAPI document to frontend/openapi.json (the dashboard's types come from it).

    .venv/bin/python scripts/export_openapi.py            # write frontend/openapi.json
    .venv/bin/python scripts/export_openapi.py --check    # exit 1 when the file is out of date
    .venv/bin/python scripts/export_openapi.py -o -       # print it

`make api-types` runs this, then `npm run api-types` in frontend/ (docs/api.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from synapse_agents.web.app import openapi_json

DEFAULT = Path(__file__).resolve().parents[1] / 'frontend' / 'openapi.json'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        '-o', '--output', default=str(DEFAULT), help="where to write it ('-': standard output)"
    )
    parser.add_argument('--check', action='store_true', help='only check that the file is up to date')
    args = parser.parse_args(argv)
    document = openapi_json()
    if args.output == '-':
        sys.stdout.write(document)
        return 0
    output = Path(args.output)
    current = output.read_text(encoding='utf-8') if output.is_file() else None
    if args.check:
        if current != document:
            print(f'{output} is out of date: run `make api-types`.', file=sys.stderr)
            return 1
        return 0
    if current != document:
        output.write_text(document, encoding='utf-8')
        print(f'wrote {output}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
