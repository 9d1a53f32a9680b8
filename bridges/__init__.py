"""The agent side: the client SDK, the bridge runtime, the mail tools, MCP and the platforms.

Bridges talk to the gateway over HTTP only: they import nothing of the server (not
`core` either). Modules: bridges/README.md.
"""
