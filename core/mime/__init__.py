"""A message's MIME structure computed under bounds, as plain data (no MIME library's
objects): what is over the bounds is opaque, stored and served as it is. With it, the
message's summary (the header values IMAP lists) and the JSON both are kept as.

Pure Python over bytes and the standard library's email package; imports nothing of
the gateway, so every layer may use it (the store keeps the structure with the bytes
it stores, core/store/raw_messages.py).
"""
