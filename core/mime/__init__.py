"""A message's MIME structure computed under bounds, as plain data (no MIME library's
objects): what is over the bounds is opaque, stored and served as it is.

Pure Python over bytes; imports nothing of the gateway, so every layer may use it
(the store marks opaque bytes when it keeps them, core/store/raw_messages.py).
"""
