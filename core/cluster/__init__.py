"""What one gateway process tells the others of its group (the workers of `serve --workers
N`, the replicas on one PostgreSQL database) beyond the event rows: its failed logins,
so the login throttle counts every guess (login_notices.py).

Below the store, whose replica listener receives the notices: imports nothing of core.
"""
