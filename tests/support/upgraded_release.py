"""The next release of the gateway, for a rolling upgrade: this checkout's code with one
more migration, which exists only in the test and is never shipped.

The packages are mirrored into a directory of the test's (real directories, a link
per file) and the migration is written into the mirror's versions directory: Alembic
finds it beside the shipped ones, because the mirror's `core/store/migrate.py` looks
for them next to itself. `python -m gateway` run there (as its working directory,
which comes first on `sys.path`) is the new release; the checkout is left as it is.
The migration is an expand step, as a release's first half of a schema change must
be: a nullable column the release before never names, so it runs on either schema.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from core.store.migrate import head_revisions

CHECKOUT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "api", "smtp_in", "imap_view", "bridges", "gateway")
REVISION = "9999t"
TABLE, COLUMN = "mails", "upgrade_note"

_MIGRATION = '''"""{table}.{column}: a nullable column (expand; the release before runs on it)

Revision ID: {revision}
Revises: {down}
"""

import sqlalchemy as sa
from alembic import op

revision = "{revision}"
down_revision = "{down}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("{table}", sa.Column("{column}", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("{table}", "{column}")
'''


def build_release(root: Path) -> Path:
    """The new release's code under `root`; returns `root`."""
    for package in PACKAGES:
        shutil.copytree(
            CHECKOUT / package,
            root / package,
            copy_function=os.symlink,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (down,) = head_revisions()
    text = _MIGRATION.format(table=TABLE, column=COLUMN, revision=REVISION, down=down)
    (root / "core/store/migrations/versions" / f"99_{REVISION}_upgrade_note.py").write_text(text)
    return root
