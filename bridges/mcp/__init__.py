"""The mail tools as an MCP server (`agentmail mcp`), on the `mcp` SDK's low-level
Server: stdio by default, streamable HTTP on loopback with the agent key as a
bearer token (`--http`). Any MCP-speaking agent can use the gateway this way,
without a bridge. The tools themselves are defined once, in bridges/tools.
"""
