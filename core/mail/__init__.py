"""The one write path and everything a mail lives in: sending (REST, SMTP, import and drafts
all call `send`; new mail is filed in the recipients' mailboxes, core/mailboxes/, inside the
same transaction), routing to conversations, naming, forward, drafts (and a client's Drafts
message made one), attachments, reading mail, the tree, directory, search; the bounds of
reading a received message (message_bytes.py: bytes to the parser in pieces; html_text.py:
HTML as text in linear time).

May import the mailbox state (core/mailboxes/), identity, the store and the vocabulary;
independent of rendering.
"""
