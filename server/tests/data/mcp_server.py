"""A small MCP server for Hearth's tests, on the official Python SDK (PyPI `mcp` 2.x),
over streamable HTTP on 127.0.0.1 at the port given as the first argument."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("hearth-test-py")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def refuse(reason: str) -> str:
    """Always fails, with the reason given."""
    raise ValueError(reason)


server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
