"""`python -m gateway` is the same as the `agentmail` command."""

from gateway.cli import app

app()
