"""Webhooks for integrations: endpoints people and admins register, deliveries written in
the transaction of the event they tell of, posted after COMMIT by one replica, signed per
the Standard Webhooks specification, retried, given up on, replayed.

May import push (its URL check), secrets, the store and the vocabulary; the write paths
in core/mail and core/approvals import this to queue their deliveries.
"""
