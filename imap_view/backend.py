"""What every IMAP session needs from the gateway: the store, attachment blobs, the domain,
and what the process shares between sessions (contents, folder states, SORT keys, the
kept structures and their queue)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.mailboxes.keywords import KeywordLimits
from core.mailboxes.snapshots import FolderSnapshots
from core.rendering.backfill import KeptQueue
from core.store.blobs import BlobStore
from core.store.engine import Store
from imap_view.config import GatewayImapConfig
from imap_view.content_cache import ContentCache
from imap_view.kept_contents import KeptCache
from imap_view.selection_base import SelectionBases
from imap_view.shared_reads import SharedReads
from imap_view.sort_keys import SortKeyCache

__all__ = ["Backend"]


@dataclass(frozen=True, slots=True)
class Backend:
    store: Store
    blobs: BlobStore
    domain: str
    config: GatewayImapConfig
    contents: ContentCache = field(default_factory=ContentCache)
    keyword_limits: KeywordLimits = field(default_factory=KeywordLimits)
    snapshots: FolderSnapshots = field(default_factory=FolderSnapshots)  # SELECT's base
    selections: SelectionBases = field(default_factory=SelectionBases)  # and its messages
    sort_keys: SortKeyCache = field(default_factory=SortKeyCache)  # originals' SORT keys
    kept: KeptCache = field(default_factory=KeptCache)  # listings' kept summaries
    # What one session of a human read, for their others (changes, content keys).
    shared_reads: SharedReads = field(default_factory=SharedReads)
    # Where structures made at read time go to be written (core/rendering/backfill.py);
    # None: not written (a gateway without background jobs).
    kept_writes: KeptQueue | None = None
