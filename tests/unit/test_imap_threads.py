"""SORT's order and the two THREAD algorithms (RFC 5256 §3) on messages made here
(imap_view/sort_order.py, imap_view/thread_references.py): REVERSE and the sequence
number tie-break, ORDEREDSUBJECT's grouping, REFERENCES' links, dummies, duplicates,
loops and subject merging, and threads thousands deep written without recursion."""

from __future__ import annotations

import pytest

from imap_view.base_subject import base_subject
from imap_view.sort_headers import message_ids
from imap_view.sort_keys import HeaderKeys
from imap_view.sort_order import (
    Criterion,
    Sortable,
    Tree,
    ordered_subject,
    sorted_numbers,
    thread_text,
)
from imap_view.thread_references import references_threads
from tests.support.margin import within_margin


def item(
    number: int,
    subject: str = "",
    sent: int | None = None,
    *,
    message_id: str | None = None,
    references: str = "",
    arrival: int = 0,
    size: int = 0,
    sender: str = "",
) -> Sortable:
    base, reply = base_subject(subject)
    keys = HeaderKeys(
        sent, base, reply, sender.upper(), "", "", message_id, tuple(message_ids(references))
    )
    return Sortable(number, arrival, size, keys)


def test_ties_are_broken_by_sequence_number_even_in_reverse() -> None:
    items = [item(1, size=10), item(2, size=5), item(3, size=10), item(4, size=5)]
    assert sorted_numbers(items, [Criterion(b"SIZE")]) == [2, 4, 1, 3]
    assert sorted_numbers(items, [Criterion(b"SIZE", reverse=True)]) == [1, 3, 2, 4]


def test_reverse_turns_one_criterion_only() -> None:
    """§3: REVERSE SUBJECT is not the reverse of SUBJECT; SUBJECT DATE vs REVERSE
    SUBJECT REVERSE DATE is."""
    items = [item(1, "b", 20), item(2, "a", 10), item(3, "b", 10), item(4, "a", 20)]
    program = [Criterion(b"SUBJECT", reverse=True), Criterion(b"DATE")]
    assert sorted_numbers(items, program) == [3, 1, 2, 4]
    both = [Criterion(b"SUBJECT", reverse=True), Criterion(b"DATE", reverse=True)]
    assert sorted_numbers(items, both) == [1, 3, 4, 2]


def test_sent_date_falls_back_to_internal_date() -> None:
    items = [item(1, sent=None, arrival=50), item(2, sent=40), item(3, sent=None, arrival=30)]
    assert sorted_numbers(items, [Criterion(b"DATE")]) == [3, 2, 1]
    assert sorted_numbers(items, [Criterion(b"ARRIVAL")]) == [2, 3, 1]


def test_the_empty_string_comes_first() -> None:
    items = [item(1, sender="bob"), item(2), item(3, sender="alice")]
    assert sorted_numbers(items, [Criterion(b"FROM")]) == [2, 3, 1]


def test_ordered_subject_groups_by_base_subject_and_orders_threads_by_first_date() -> None:
    items = [
        item(1, "Re: plan", 30),
        item(2, "plan", 20),
        item(3, "lunch", 25),
        item(4, "Fwd: PLAN", 40),
        item(5, "lunch", 25),
        item(6, "other", 10),
    ]
    assert thread_text(ordered_subject(items)) == "(6)(2 (1)(4))(3 5)"


def threads(*items: Sortable) -> str:
    return thread_text(references_threads(list(items)))


def test_references_make_chains_and_branches() -> None:
    assert (
        threads(
            item(1, "a", 1, message_id="a@x"),
            item(2, "Re: a", 2, message_id="b@x", references="<a@x>"),
            item(3, "Re: a", 3, message_id="c@x", references="<a@x> <b@x>"),
            item(4, "Re: a", 4, message_id="d@x", references="<a@x>"),
        )
        == "(1 (2 3)(4))"
    )


def test_a_missing_parent_is_a_dummy_that_keeps_its_children_together() -> None:
    two = item(2, "x", 2, message_id="b@x", references="<gone@x>")
    three = item(3, "y", 3, message_id="c@x", references="<gone@x>")
    assert threads(two, three) == "((2)(3))"
    assert threads(two) == "(2)"  # a dummy with one child gives way to it


def test_a_missing_middle_is_pruned_and_its_child_moves_up() -> None:
    root = item(1, "a", 1, message_id="a@x")
    grandchild = item(2, "b", 2, message_id="c@x", references="<a@x> <gone@x>")
    assert threads(root, grandchild) == "(1 2)"


def test_in_reply_to_is_used_only_without_references() -> None:
    """keys_of_header takes In-Reply-To's first id when References has none; here
    References is what the message carries."""
    assert (
        threads(
            item(1, "a", 1, message_id="a@x"),
            item(2, "b", 2, message_id="b@x"),
            item(3, "c", 3, message_id="c@x", references="<b@x>"),
        )
        == "(1)(2 3)"
    )


def test_a_duplicate_message_id_is_its_own_message() -> None:
    assert (
        threads(
            item(1, "first", 1, message_id="dup@x"),
            item(2, "second", 2, message_id="dup@x"),
            item(3, "third", 3, message_id="c@x", references="<dup@x>"),
        )
        == "(1 3)(2)"
    )


def test_a_loop_keeps_the_first_link() -> None:
    assert (
        threads(
            item(1, "one", 1, message_id="a@x", references="<b@x>"),
            item(2, "two", 2, message_id="b@x", references="<a@x>"),
            item(3, "self", 3, message_id="s@x", references="<s@x>"),
        )
        == "(2 1)(3)"
    )


def test_own_references_replace_a_parent_others_gave() -> None:
    """1.B: a message that names no parent has none, whatever others said (3 was below 1
    by 2's References); what hangs below it stays."""
    assert (
        threads(
            item(1, "p", 1, message_id="p@x"),
            item(2, "c", 2, message_id="c@x", references="<p@x> <m@x>"),
            item(3, "m", 3, message_id="m@x"),
        )
        == "(1)(3 2)"
    )


def test_threads_of_one_subject_are_merged() -> None:
    """5.C: a reply joins the thread of the original; two originals share a dummy."""
    assert threads(item(1, "plan", 1), item(2, "Re: plan", 2)) == "(1 2)"
    assert threads(item(1, "plan", 1), item(2, "plan", 2)) == "((1)(2))"
    assert threads(item(1, "Re: plan", 1), item(2, "plan", 2)) == "(2 1)"
    assert threads(item(1, "", 1), item(2, "", 2)) == "(1)(2)"  # empty: never merged


def test_siblings_and_threads_are_in_sent_date_order() -> None:
    assert (
        threads(
            item(1, "a", 50, message_id="a@x"),
            item(2, "b", 40, message_id="b@x", references="<a@x>"),
            item(3, "c", 10, message_id="c@x", references="<a@x>"),
            item(4, "d", 45),
        )
        == "(4)(1 (3)(2))"
    )


def test_thread_text_writes_only_children_after_a_space() -> None:
    leaf = Tree(7, [])
    tree = Tree(3, [Tree(6, []), Tree(4, [Tree(23, [])]), Tree(44, [Tree(7, [Tree(96, [])])])])
    assert thread_text([tree, Tree(None, [leaf, Tree(8, [])])]) == (
        "(3 (6)(4 23)(44 7 96))((7)(8))"
    )


@pytest.mark.parametrize("depth", [20_000])
def test_a_chain_thousands_deep_is_threaded_and_written(depth: int) -> None:
    chain = [
        item(n, "deep", n, message_id=f"{n}@x", references=f"<{n - 1}@x>" if n > 1 else "")
        for n in range(1, depth + 1)
    ]
    text = within_margin(lambda: threads(*chain))
    assert text == "(" + " ".join(str(n) for n in range(1, depth + 1)) + ")"


def test_long_reference_chains_of_missing_messages_are_walked_once() -> None:
    """Every message names the same 1,000 missing ancestors: each walk up the dummies
    is remembered, so the work grows with the references, not with messages times
    ancestors times depth."""
    ancestors = " ".join(f"<m{n}@x>" for n in range(1000))
    many = [item(n, f"s{n}", n, message_id=f"{n}@x", references=ancestors) for n in range(1000)]
    text = within_margin(lambda: threads(*many))
    assert text == "(" + "".join(f"({n})" for n in range(1000)) + ")"
