"""Print the gateway's OpenAPI document as JSON, without starting a server.

The web UI's TypeScript types are generated from it (`cd web && npm run gen:api`);
`npm run check:api` fails when the committed types drift from it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from api.app import create_app
from core.settings import Settings

try:
    from core.store.engine import Store
except ImportError:  # before core/ was split into subpackages
    from core.store import Store  # type: ignore[attr-defined,no-redef]


async def document() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="agentmail-openapi-") as tmp:
        settings = Settings(data_dir=Path(tmp), database_url="")
        # The store is never queried: building the document only walks the routes.
        store = Store(f"sqlite:///{settings.sqlite_path}")
        try:
            return create_app(settings, store).openapi()
        finally:
            await store.close()


def main() -> None:
    json.dump(asyncio.run(document()), sys.stdout, indent=2, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
