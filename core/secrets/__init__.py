"""Secrets every replica needs (VAPID, DKIM, reply-token keys, webhook secrets), kept in
`meta` rows sealed under the settings' secret key.

Imports the store and the settings; the packages that hold such a key import this one.
"""
