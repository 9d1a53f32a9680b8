"""THREAD=REFERENCES (RFC 5256 §3): threads from Message-ID and References, then subjects.

The steps are the RFC's, in the order and with the choices Dovecot 2.3 makes
(src/lib-storage/index/index-thread-links.c, index-thread-finish.c), the oracle of
tests/integration/test_imap_dovecot_diff.py:

1. For each searched message in order: its Message-ID names its node (a message with
   none, or with one an earlier message has, gets a node of its own); its references
   are linked as a chain, each the parent of the next, and the last becomes its parent
   (1.B: a parent it had from others' references is dropped; no references, no
   parent). A link is never made where the child has a parent already or where it
   would close a loop (1.A). References to messages not searched make dummies.
2.-3. The nodes without a parent are the threads; a message below a dummy hangs from
   its nearest ancestor that is a message, or from the top dummy (a dummy with one
   child gives way to it, step 4).
4. The threads in order of sent date (§2.2, then sequence), a dummy by its first child.
5. Threads whose base subjects (§2.1) are the same are merged, as 5.A-C say.
6. Siblings are in order of sent date at every level.

Whether the child is already below the parent (a loop) is asked by walking up from the
parent; each node remembers an ancestor found on an earlier walk (valid until a link
is dropped, step 1.B), so a long chain is walked once, not once per message.
"""

from __future__ import annotations

from collections.abc import Sequence

from imap_view.sort_order import Sortable, Tree

__all__ = ["references_threads"]

_NONE = -1


class _Links:
    """Step 1's nodes: a message (its index) or a dummy (-1), and each one's parent."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.message: list[int] = []
        self.by_id: dict[str, int] = {}
        self.ancestor: dict[int, int] = {}  # a known ancestor of a node

    def new(self) -> int:
        self.parent.append(_NONE)
        self.message.append(_NONE)
        return len(self.parent) - 1

    def named(self, message_id: str) -> int:
        node = self.by_id.get(message_id)
        if node is None:
            node = self.by_id[message_id] = self.new()
        return node

    def top(self, node: int) -> int:
        """The node's root, known ancestors taken as shortcuts and remembered."""
        passed = []
        while self.parent[node] != _NONE:
            passed.append(node)
            node = self.ancestor.get(node, self.parent[node])
        for seen in passed:
            self.ancestor[seen] = node
        return node

    def link(self, parent: int, child: int) -> None:
        """Make `parent` the parent of `child`, unless it has one (the first link stays)
        or `child` is `parent` or above it (a loop)."""
        if self.parent[child] == _NONE and self.top(parent) != child:
            self.parent[child] = parent

    def cut(self, node: int) -> None:
        self.parent[node] = _NONE
        self.ancestor.clear()  # what lay above `node` is no longer above what is below it

    def add(self, index: int, item: Sortable) -> None:
        keys = item.keys
        node = _NONE if keys.message_id is None else self.named(keys.message_id)
        if node == _NONE or self.message[node] != _NONE:  # none, or a duplicate: its own
            node = self.new()
        self.message[node] = index
        last = _NONE
        for reference in keys.references:
            current = self.named(reference)
            if last != _NONE:
                self.link(last, current)
            last = current
        if self.parent[node] not in (_NONE, last):  # 1.B: its own references decide
            self.cut(node)
        if last != _NONE:
            self.link(last, node)


class _Finish:
    """Steps 2 to 6 over the linked nodes."""

    def __init__(self, links: _Links, items: Sequence[Sortable]) -> None:
        self.items = items
        self.message = links.message
        self.children: dict[int, list[int]] = {}
        self.roots: list[int] = []
        top_of: dict[int, int] = {}  # a dummy's nearest message above it, or top dummy
        for node, parent in enumerate(links.parent):
            if parent == _NONE:
                self.roots.append(node)
            elif self.message[node] != _NONE:
                passed = []
                while self.message[parent] == _NONE and links.parent[parent] != _NONE:
                    if parent in top_of:
                        parent = top_of[parent]
                        break
                    passed.append(parent)
                    parent = links.parent[parent]
                for dummy in passed:
                    top_of[dummy] = parent
                self.children.setdefault(parent, []).append(node)

    def order(self, node: int) -> tuple[int, int]:
        item = self.items[self.message[node]]
        return item.sent, item.number

    def sorted_children(self, node: int) -> list[int]:
        return sorted(self.children.get(node, ()), key=self.order)

    def root_order(self, root: int) -> tuple[int, int]:
        if self.message[root] != _NONE:
            return self.order(root)
        return self.order(self.sorted_children(root)[0])

    def sorted_roots(self) -> list[int]:
        """Step 4: a childless dummy dropped, a dummy with one child replaced by it."""
        kept = []
        for root in self.roots:
            if self.message[root] == _NONE:
                below = self.children.get(root, [])
                if not below:
                    continue
                if len(below) == 1:
                    root = below[0]
            kept.append(root)
        return sorted(kept, key=self.root_order)

    def subject_of(self, root: int) -> tuple[str, bool]:
        node = root if self.message[root] != _NONE else self.sorted_children(root)[0]
        keys = self.items[self.message[node]].keys
        return keys.subject, keys.reply

    def merged(self, roots: list[int]) -> list[int]:
        """Step 5: threads of one base subject gathered (5.A-B) and merged (5.C)."""
        table: dict[str, int] = {}
        above: dict[int, int] = {}  # a root merged into another (the table's, later)
        reply: dict[int, bool] = {}
        for root in roots:
            subject, is_reply = self.subject_of(root)
            if not subject:
                continue
            held = table.get(subject)
            if held is None:
                table[subject] = root
            elif self.message[held] != _NONE and (
                self.message[root] == _NONE or (reply[held] and not is_reply)
            ):
                above[held] = table[subject] = root
            else:
                above[root] = held
            reply[root] = is_reply
        gone: set[int] = set()
        added = []
        for root in roots:
            if root not in above or root in gone:
                continue
            target = root
            while target in above:
                target = above[target]
            if self.message[root] == _NONE:  # both dummies: one dummy, all the children
                self.children[target] += self.children.pop(root)
                gone.add(root)
            elif self.message[target] == _NONE or (reply[root] and not reply[target]):
                self.children.setdefault(target, []).append(root)
                gone.add(root)
            else:  # a new dummy above both, now the table's
                dummy = len(self.message)
                self.message.append(_NONE)
                self.children[dummy] = [target, root]
                above[target] = dummy
                gone |= {root, target}
                added.append(dummy)
        if not gone:
            return roots
        return sorted([r for r in roots if r not in gone] + added, key=self.root_order)

    def tree(self, root: int) -> Tree:
        """Step 6: the thread below `root`, siblings by sent date (a stack, not
        recursion: a chain may be thousands deep)."""
        message = self.message[root]
        top = Tree(None if message == _NONE else self.items[message].number, [])
        pending = [(root, top)]
        while pending:
            node, made = pending.pop()
            for child in self.sorted_children(node):
                branch = Tree(self.items[self.message[child]].number, [])
                made.children.append(branch)
                pending.append((child, branch))
        return top


def references_threads(items: Sequence[Sortable]) -> list[Tree]:
    """THREAD=REFERENCES of `items` (given in sequence order)."""
    links = _Links()
    for index, item in enumerate(items):
        links.add(index, item)
    finish = _Finish(links, items)
    return [finish.tree(root) for root in finish.merged(finish.sorted_roots())]
