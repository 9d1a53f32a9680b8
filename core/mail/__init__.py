"""The one write path and everything a mail lives in: sending (REST, SMTP, import and drafts
all call `send`), routing to conversations, naming, IMAP UID filing and placement (they run
inside the write transaction), forward, drafts, attachments, mailboxes, the tree, directory;
the bounds of reading a received message (message_bytes.py: bytes to the parser in
pieces; html_text.py: HTML as text in linear time).

May import identity, the store and the vocabulary; independent of rendering.
"""
