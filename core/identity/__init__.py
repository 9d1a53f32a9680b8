"""Who is who: human accounts, agents and their workspaces, keys and passwords, the login
guard (one guess budget for every protocol), the sessions each credential opened (ended
when it is revoked or changed), endpoints (an address resolved to a user or an agent) and
external participants.

May import the store and the vocabulary; nothing of mail, rendering or above.
"""
