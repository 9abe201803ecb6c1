"""An MCP server for Hearth's protocol-revision tests, on the official Python SDK (PyPI `mcp`
2.x), which speaks both the 2025-11-25 handshake revision (`initialize`, a session id) and the
stateless 2026-07-28 revision (`server/discover`, every request self-contained):
`python mcp_revision_server.py PORT [options]`, streamable HTTP on 127.0.0.1:PORT/mcp.

  --only stateless   a server that knows only 2026-07-28: every request is read as a
                     2026-07-28 request, so `initialize` is refused by the SDK's own
                     2026-07-28 request checks
  --only handshake   a server that knows only 2025-11-25: a 2026-07-28 request (its
                     `MCP-Protocol-Version` header) gets what a 2025-11-25 SDK answers a
                     request without a session: 400 and JSON-RPC error -32000, "Bad Request:
                     Server not initialized", id null (as npm server-everything 2026.8.31 does)
  --list-ttl-ms N    list results (tools, prompts, resources) carry ttlMs N (2026-07-28 only)
  --cache-scope S    ... and cacheScope S (public or private; private by default)

Tools `add`, `echo` and `forecast` (its `region` argument mirrored into the
`Mcp-Param-Region` header, SEP-2243: under 2026-07-28 the SDK refuses a call whose header is
missing or differs); `book_table`, which asks the user a form first (the SDK's `Elicit`
resolver: under 2026-07-28 an `input_required` result, the answer on the retried call;
under 2025-11-25 a standalone `elicitation/create` in the middle of the call), and `pay`,
which asks the user to open a page (`input_required` with a URL request, written by hand)
and says what they answered; prompt `greet` (argument `name`), resources `note://today` (text) and
`note://logo.png` (a 48×32 PNG, as a base64 blob).
Test hooks: `GET /test/stats` counts the JSON-RPC requests seen, by method, how many carried
`MCP-Protocol-Version: 2026-07-28` (`stateless`) or a session id (`sessions`), and the
`tools/call` requests that carried `Mcp-Param-Region` (`region-headers`);
`POST /test/add-tool` adds the tool `multiply` and `POST /test/remove-tool` removes `echo`
(a server whose tools change while it runs); after `POST /test/hang-lists` every
`tools/list` waits 120 s before it is answered (a hung server)."""

import argparse
import asyncio
import json
import struct
import zlib
from collections import Counter
from typing import Annotated

import uvicorn
from asgi_body import buffered
from mcp.server import streamable_http_manager
from mcp.server.caching import CacheHint
from typing import Literal

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp_types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult
from pydantic import BaseModel, Field

STATELESS = "2026-07-28"

parser = argparse.ArgumentParser(description="MCP revision test server")
parser.add_argument("port", type=int)
parser.add_argument("--only", choices=["stateless", "handshake"])
parser.add_argument("--list-ttl-ms", type=int)
parser.add_argument("--cache-scope", choices=["public", "private"], default="private")
args = parser.parse_args()

hints = None
if args.list_ttl_ms is not None:
    hint = CacheHint(ttl_ms=args.list_ttl_ms, scope=args.cache_scope)
    hints = {"tools/list": hint, "prompts/list": hint, "resources/list": hint}

server = MCPServer("hearth-revision-py", cache_hints=hints) if hints else MCPServer("hearth-revision-py")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def echo(message: str) -> str:
    """Say the message back."""
    return message


@server.tool()
def forecast(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], days: int = 1) -> str:
    """The weather for a region (routed by the region's header)."""
    return f"Sunny in {region} for {days} day(s)."


class Booking(BaseModel):
    date: str = Field(title="Day", description="The day of the booking", json_schema_extra={"format": "date"})
    guests: int = Field(default=2, ge=1, le=12, title="Guests")
    room: Literal["garden", "hall"] = Field(default="garden", title="Room")
    outside: bool = Field(default=False, title="Outside")


def ask_booking() -> Elicit[Booking]:
    return Elicit("Which day, and for how many guests?", Booking)


@server.tool()
def book_table(
    restaurant: str, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]
) -> str:
    """Book a table (asks the user for the day and the guests)."""
    stats["bookings"] += 1
    if booking.action != "accept":
        return f"No booking at {restaurant}: the user chose {booking.action}."
    b = booking.data
    return f"Booked {restaurant} on {b.date} for {b.guests} ({b.room}, outside: {str(b.outside).lower()})."


@server.tool()
def pay(amount: int, ctx: Context) -> str | InputRequiredResult:
    """Pay an amount (asks the user to open the payment page)."""
    answers = ctx.input_responses or {}
    if "checkout" in answers and ctx.request_state == f"pay-{amount}":
        answer = answers["checkout"]
        action = answer.action if hasattr(answer, "action") else answer.get("action")
        return f"Payment of {amount}: the user chose {action}."
    url = ElicitRequestURLParams(
        mode="url",
        message=f"Open the payment page to pay {amount}.",
        url=f"https://pay.example.com/checkout/{amount}",
        elicitation_id=f"pay-{amount}",
    )
    return InputRequiredResult(
        result_type="input_required",
        input_requests={"checkout": ElicitRequest(method="elicitation/create", params=url)},
        request_state=f"pay-{amount}",
    )


def multiply(a: int, b: int) -> int:
    """Multiply two whole numbers."""
    return a * b


@server.prompt()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Please greet {name} warmly."


@server.resource("note://today", mime_type="text/plain")
def today() -> str:
    """Today's note."""
    return "The note for today."


def gradient_png(width: int, height: int) -> bytes:
    """An RGB gradient as a PNG, written by hand (no imaging library in the venv)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(
        b"\0" + bytes(v for x in range(width) for v in (x * 255 // width, y * 255 // height, 128))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@server.resource("note://logo.png", mime_type="image/png")
def logo() -> bytes:
    """The logo."""
    return gradient_png(48, 32)


if args.only == "stateless":
    # The SDK sends requests whose header names a handshake revision to its 2025 paths; with
    # none known, every request takes the 2026-07-28 path.
    streamable_http_manager.HANDSHAKE_PROTOCOL_VERSIONS = ()

stats = Counter()
hung = {"lists": False}


def counted(inner):
    async def app(scope, receive, send):
        hooks = ("/test/stats", "/test/add-tool", "/test/remove-tool", "/test/hang-lists")
        if scope["type"] != "http" or scope["path"] not in hooks and scope["path"] != "/mcp":
            await inner(scope, receive, send)
            return
        if scope["path"] in hooks:
            if scope["path"] == "/test/add-tool":
                server.add_tool(multiply)
            elif scope["path"] == "/test/remove-tool":
                server.remove_tool("echo")
            elif scope["path"] == "/test/hang-lists":
                hung["lists"] = True
            body = json.dumps(dict(stats)).encode()
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        headers = dict(scope.get("headers") or [])
        version = headers.get(b"mcp-protocol-version", b"").decode()
        body, receive = await buffered(receive)
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        method = parsed.get("method") if isinstance(parsed, dict) else None
        if scope["method"] == "POST":
            stats[method or "(response)"] += 1
            stats["stateless"] += version == STATELESS
            stats["sessions"] += b"mcp-session-id" in headers
            if method == "tools/call" and b"mcp-param-region" in headers:
                stats["region-headers"] += 1
        if method == "tools/list" and hung["lists"]:
            await asyncio.sleep(120)
        if args.only == "handshake" and version == STATELESS:
            error = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: Server not initialized"}, "id": None}
            await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": json.dumps(error).encode()})
            return
        if args.only == "stateless" and scope["method"] == "POST" and not version:
            # A headerless request (the handshake's `initialize`) read as 2026-07-28 all the same.
            scope = dict(scope, headers=[*scope["headers"], (b"mcp-protocol-version", STATELESS.encode())])
        await inner(scope, receive, send)

    return app


app = counted(server.streamable_http_app())
uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
