"""The API contract as a file: the app's OpenAPI document, rendered the same way every time.

`scripts/export_openapi.py` (`make api-types`) writes it to `frontend/openapi.json`, from which the
dashboard's TypeScript types are generated (docs/api.md); tests/unit/test_api_contract.py fails
when the committed file is not what the app generates now.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from ..plugins.manager import plugin_manager
from ..settings import load_settings
from ..store import Store
from .app import create_app
from .context import SynapseContext


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of an app with default settings (the schema depends on no setting).

    Only Synapse's own routes: an installed plugin's routes are not part of the contract.
    """
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / 'pyproject.toml').write_text('[project]\nname = "contract"\n')
        loaded = load_settings({'database_url': 'sqlite://'}, cwd=root, load_dotenv=False)
        store = Store.open('sqlite://', root / 'attachments')
        try:
            context = SynapseContext(loaded=loaded, store=store, plugins=plugin_manager(entry_points=False))
            return create_app(context).openapi()
        finally:
            store.close()


def openapi_json() -> str:
    """`openapi_document()` as the committed file holds it: indented, UTF-8, a final newline."""
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + '\n'
