"""Who sent a mail from outside: SPF (RFC 7208), DKIM (RFC 6376) and DMARC (RFC 7489)
verdicts on a message as it arrived, and the Authentication-Results header (RFC 8601)
that records them.

May import only libraries (dkimpy, pyspf, publicsuffixlist, authres, dnspython); the
MX listener and the reply decision above it use the verdicts.
"""
