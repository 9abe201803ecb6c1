"""A small MCP server for Hearth's tests, on the official Python SDK (PyPI `mcp` 2.x),
over streamable HTTP on 127.0.0.1 at the port given as the first argument. With a second
argument, every HTTP request must carry `Authorization: Bearer <that token>` (401
otherwise), as a server that needs authorization does. A third argument names another
header that must carry the token as it is (`X-Api-Key`), and every further `name=value`
argument is a plain header every request must carry too."""

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


def guarded(inner, token, header=None, plain=()):
    if header is None:
        required = {b"authorization": f"Bearer {token}".encode()}
    else:
        required = {header.lower().encode(): token.encode()}
    for pair in plain:
        name, value = pair.split("=", 1)
        required[name.lower().encode()] = value.encode()

    async def app(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if any(headers.get(name) != value for name, value in required.items()):
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
    header = sys.argv[3] if len(sys.argv) > 3 else None
    app = guarded(app, sys.argv[2], header, sys.argv[4:])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
