"""Who is who: human accounts, agents and their workspaces, keys and passwords, login
throttles, endpoints (an address resolved to a user or an agent) and external participants.

May import the store and the vocabulary; nothing of mail, rendering or above.
"""
