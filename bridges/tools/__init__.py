"""The mail tools a model uses: one definition of each (name, JSON schema, a
description written for a model) and its implementation over the agent API.

`catalog.TOOLS` is the list every platform renders (the MCP server in
`bridges/mcp`, the platform adapters); `catalog.call_tool` validates the
arguments against the schema and runs the tool, turning every refusal into a
`ToolError` whose message the model can act on. Tools reach the gateway only
through the client SDK (`bridges/client`), never the server's code.
"""
