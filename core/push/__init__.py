"""Web Push to a person's browsers: the gateway's VAPID key pair (kept in the database),
subscriptions per person, push jobs written with the request they tell of and sent
after COMMIT by one replica.

May import the store and the vocabulary; nothing of mail, rendering or above (the write
path in core/mail imports this to queue its pushes).
"""
