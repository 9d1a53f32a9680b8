"""Mail between the gateway and a human's own mailboxes outside: their external
addresses and the codes that verify them, and the replies that come back through the
MX listener — stored in the request's conversation, deciding only on proof.

Imports the layers below (approvals, mail, outbound, secrets, mailauth, store); no
adapter imports anything here but through these functions.
"""
