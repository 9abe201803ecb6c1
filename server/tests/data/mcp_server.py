"""A small MCP server for Hearth's tests, on the official Python SDK (PyPI `mcp` 2.x),
over streamable HTTP on 127.0.0.1 at the port given as the first argument. With a second
argument, every HTTP request must carry `Authorization: Bearer <that token>` (401
otherwise), as a server that needs authorization does."""

import sys

import uvicorn
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


def guarded(inner, token):
    expected = f"Bearer {token}".encode()

    async def app(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != expected:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b'{"error":"unauthorized"}'})
                return
        await inner(scope, receive, send)

    return app


app = server.streamable_http_app()
if len(sys.argv) > 2:
    app = guarded(app, sys.argv[2])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
