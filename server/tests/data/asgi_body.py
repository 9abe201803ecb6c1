"""Shared by the MCP test servers in this folder: an ASGI request body read whole, so a
wrapper can look at the JSON-RPC message before the SDK does."""


async def buffered(receive):
    """The request body read whole, and a `receive` that gives it again."""
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    given = False

    async def replay():
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay
