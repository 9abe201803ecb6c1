"""An OAuth-2.1-protected MCP server for Hearth's tests, on the official Python SDK (PyPI `mcp`
2.x): `python mcp_oauth_server.py PORT [options]`. Everything is served on 127.0.0.1 over plain
HTTP, and one origin `http://127.0.0.1:PORT` is both the resource server (MCP endpoint `/mcp`,
tools `add` and `whoami`) and its authorization server (issuer = that origin). The SDK's own
handlers serve /authorize, /token (PKCE S256), /register (RFC 7591), /revoke and the RFC 8414
metadata; this file only holds the in-memory provider and the test switches:

  --token-lifetime SECONDS  access-token lifetime (3600); refresh tokens rotate on every use
  --no-registration         no dynamic client registration endpoint
  --cimd                    accept http(s) URL client_ids, resolved as client metadata documents
  --static-client ID:SECRET:REDIRECT_URI  a pre-registered client (repeatable; empty SECRET =
                            public client; a secret may go as client_secret_post or _basic)
  --wrong-issuer            the AS metadata names an issuer other than the URL it came from
  --bad-iss                 the authorization redirect carries iss=https://evil.example
  --advertise-as URL        the protected-resource metadata names URL as authorization server
  --consent                 GET /authorize shows an HTML page (button #allow) instead of
                            approving at once; the page's form POSTs back to /authorize
  --log FILE                append one JSON line per HTTP request (method, path, query, headers)
  --admin-scope             a tool `admin_report` that needs the scope `mcp:admin` too (which
                            registration allows): a call with a token without it gets 403
                            and a Bearer challenge error="insufficient_scope"
  --lenient-start           /mcp answers `server/discover` (method not found), `initialize` and
                            its notification without a token, as some servers do, and asks
                            for one only from `tools/list` on (LibreChat #13249's server)
  --require-header NAME=VALUE  /mcp sits behind a gateway that answers 400 to a request
                            without that header, before the SDK sees it (counted as
                            gateway_refusals)

Tokens are bound (RFC 8707) to the `resource` of the authorization or token request; /mcp takes
only unexpired, unrevoked tokens for `http://127.0.0.1:PORT/mcp`. Test hooks, without auth:
`POST /test/revoke-all` drops every token; `GET /test/stats` counts registrations, token
requests (every POST /token), refreshes, authorization requests and client-metadata fetches."""

import argparse
import contextvars
import json
import secrets
import time
from html import escape

import httpx2
import uvicorn
from asgi_body import buffered
from mcp.server.auth.handlers import revoke
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, cors_middleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken, ProtectedResourceMetadata
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

parser = argparse.ArgumentParser(description="OAuth-protected MCP test server")
parser.add_argument("port", type=int)
parser.add_argument("--token-lifetime", type=int, default=3600, metavar="SECONDS")
parser.add_argument("--no-registration", action="store_true")
parser.add_argument("--cimd", action="store_true")
parser.add_argument("--static-client", action="append", default=[], metavar="ID:SECRET:REDIRECT_URI")
parser.add_argument("--wrong-issuer", action="store_true")
parser.add_argument("--bad-iss", action="store_true")
parser.add_argument("--advertise-as", metavar="URL")
parser.add_argument("--consent", action="store_true")
parser.add_argument("--log", metavar="FILE")
parser.add_argument("--require-header", metavar="NAME=VALUE")
parser.add_argument("--admin-scope", action="store_true")
parser.add_argument("--lenient-start", action="store_true")
args = parser.parse_args()

SCOPE = "mcp:tools"
ADMIN_SCOPE = "mcp:admin"
ORIGIN = f"http://127.0.0.1:{args.port}"
ISSUER = ORIGIN
RESOURCE = f"{ORIGIN}/mcp"
# RFC 9207: the `iss` the authorization redirect carries (a foreign one under --bad-iss).
REDIRECT_ISS = "https://evil.example" if args.bad_iss else ISSUER
CODE_LIFETIME = 300
# What provider.authorize returns under --consent; the /authorize wrapper turns it into the page.
CONSENT_MARKER = "urn:hearth-test:consent:"

stats = dict.fromkeys(
    ["registrations", "token_requests", "refreshes", "authorizations", "cimd_fetches", "gateway_refusals"], 0
)

# Facts about the current HTTP request that the SDK does not pass on to the provider.
requested_resource: contextvars.ContextVar[str | None] = contextvars.ContextVar("resource", default=None)
sent_basic_auth: contextvars.ContextVar[bool] = contextvars.ContextVar("basic", default=False)


class Provider:
    """An in-memory OAuthAuthorizationServerProvider: clients, codes and tokens live in dicts."""

    def __init__(self, static_clients: list[str]):
        self.clients: dict[str, OAuthClientInformationFull] = {}  # dynamically registered
        self.static: dict[str, OAuthClientInformationFull] = {}
        self.documents: dict[str, OAuthClientInformationFull] = {}  # resolved CIMD client_ids
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.partner: dict[str, str] = {}  # access <-> refresh token of one grant, both ways
        self.pending: dict[str, tuple[str, AuthorizationParams]] = {}  # awaiting consent
        for spec in static_clients:
            client_id, secret, redirect_uri = spec.split(":", 2)
            self.static[client_id] = OAuthClientInformationFull(
                client_id=client_id,
                client_secret=secret or None,
                redirect_uris=[redirect_uri],
                token_endpoint_auth_method="client_secret_post" if secret else "none",
                scope=SCOPE,
            )

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id in self.static:
            client = self.static[client_id]
            # The SDK checks only the client's one registered method: pick the one this request used.
            if client.client_secret and sent_basic_auth.get():
                return client.model_copy(update={"token_endpoint_auth_method": "client_secret_basic"})
            return client
        if args.cimd and client_id.startswith(("http://", "https://")):
            return await self.resolve_document(client_id)
        return self.clients.get(client_id)

    async def resolve_document(self, url: str) -> OAuthClientInformationFull | None:
        """A client ID metadata document: fetched once, kept if its client_id is its own URL.
        The SDK then checks the requested redirect_uri against its redirect_uris."""
        if url not in self.documents:
            stats["cimd_fetches"] += 1
            try:
                async with httpx2.AsyncClient(timeout=5) as http:
                    response = await http.get(url, headers={"Accept": "application/json"})
                document = response.json()
                if response.status_code != 200 or document.get("client_id") != url:
                    return None
                self.documents[url] = OAuthClientInformationFull(
                    client_id=url,
                    client_name=document.get("client_name"),
                    redirect_uris=document.get("redirect_uris"),
                    token_endpoint_auth_method="none",
                    scope=SCOPE,
                )
            except Exception:
                return None
        return self.documents[url]

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        stats["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if args.consent:
            request_id = secrets.token_urlsafe(16)
            self.pending[request_id] = (client.client_id, params)
            return CONSENT_MARKER + request_id
        return self.grant(client.client_id, params)

    def grant(self, client_id: str, params: AuthorizationParams) -> str:
        """Issue a code and return the redirect back to the client (RFC 9207: with `iss`)."""
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + CODE_LIFETIME,
            client_id=client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=REDIRECT_ISS)

    async def load_authorization_code(self, client, authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        resource = target(authorization_code.resource)
        del self.codes[authorization_code.code]  # single use
        return self.issue(client.client_id, authorization_code.scopes, resource)

    async def load_refresh_token(self, client, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        resource = target(refresh_token.resource)
        await self.revoke_token(refresh_token)  # rotation: the old pair stops working
        return self.issue(client.client_id, scopes, resource)

    def issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires_at = int(time.time()) + args.token_lifetime
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        self.partner[access], self.partner[refresh] = refresh, access
        return OAuthToken(
            access_token=access, expires_in=args.token_lifetime, scope=" ".join(scopes), refresh_token=refresh
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and time.time() >= access.expires_at):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Revoking either token of a grant revokes both."""
        for value in (token.token, self.partner.pop(token.token, None)):
            if value is not None:
                self.access.pop(value, None)
                self.refresh.pop(value, None)
                self.partner.pop(value, None)

    def revoke_all(self) -> None:
        self.access.clear()
        self.refresh.clear()
        self.partner.clear()


def target(bound: str | None) -> str | None:
    """RFC 8707: the resource a token is for. A token request may name only this server's
    resource, and no other than the one the grant was made for."""
    asked = requested_resource.get()
    if asked is None:
        return bound
    if asked.rstrip("/") != RESOURCE:
        raise TokenError(error="invalid_target", error_description=f"unknown resource {asked}")
    if bound is not None and bound.rstrip("/") != RESOURCE:
        raise TokenError(error="invalid_target", error_description=f"the grant is for resource {bound}")
    return asked


class RevocationRequest(revoke.RevocationRequest):
    client_secret: str | None = None


# The SDK's RFC 7009 form model requires a `client_secret` field, so a public client could not
# revoke: make it optional (the SDK's ClientAuthenticator still checks secrets where needed).
revoke.RevocationRequest = RevocationRequest

provider = Provider(args.static_client)
registration = ClientRegistrationOptions(
    enabled=not args.no_registration,
    valid_scopes=[SCOPE, ADMIN_SCOPE] if args.admin_scope else [SCOPE],
    default_scopes=[SCOPE],
)
auth = AuthSettings(
    issuer_url=ISSUER,
    resource_server_url=RESOURCE,
    required_scopes=[SCOPE],
    validate_token_resource=True,
    client_registration_options=registration,
    revocation_options=RevocationOptions(enabled=True),
)
server = MCPServer("hearth-test-oauth", auth_server_provider=provider, auth=auth, log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


if args.admin_scope:

    @server.tool()
    def admin_report() -> str:
        """The administrator's report (needs the mcp:admin scope)."""
        return "The admin report: all is well."


@server.tool()
def whoami() -> str:
    """The client_id of the access token this request came with."""
    token = get_access_token()
    return token.client_id if token else ""


# --- Endpoints wrapped or replaced around the SDK's own ---

sdk_authorize = AuthorizationHandler(provider)
sdk_token = TokenHandler(provider, ClientAuthenticator(provider))

CONSENT_PAGE = """<!doctype html>
<html><head><title>Authorize</title></head><body>
<h1>Authorize</h1>
<p>Allow <b>{client}</b> to use this MCP server ({scope})?</p>
<form method="post" action="/authorize">
<input type="hidden" name="consent_request" value="{request}">
<button id="allow" name="decision" value="allow" type="submit">Allow</button>
<button id="deny" name="decision" value="deny" type="submit">Deny</button>
</form></body></html>
"""


async def authorize_endpoint(request: Request) -> Response:
    """The SDK's /authorize, with the --consent page in front of the provider's grant."""
    form = await request.form() if request.method == "POST" else {}
    if "consent_request" in form:  # the consent page's answer
        pending = provider.pending.pop(str(form["consent_request"]), None)
        if pending is None:
            return JSONResponse({"error": "invalid_request", "error_description": "unknown consent"}, 400)
        client_id, params = pending
        if form.get("decision") == "allow":
            location = provider.grant(client_id, params)
        else:
            location = construct_redirect_uri(
                str(params.redirect_uri), error="access_denied", state=params.state, iss=REDIRECT_ISS
            )
        return RedirectResponse(location, status_code=302, headers={"Cache-Control": "no-store"})
    stats["authorizations"] += 1
    response = await sdk_authorize.handle(request)
    location = response.headers.get("location", "")
    if location.startswith(CONSENT_MARKER):
        request_id = location.removeprefix(CONSENT_MARKER)
        client_id, params = provider.pending[request_id]
        page = CONSENT_PAGE.format(
            client=escape(client_id), scope=escape(" ".join(params.scopes or [SCOPE])), request=request_id
        )
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})
    return response


async def token_endpoint(request: Request) -> Response:
    """The SDK's /token, noting the request's `resource` (RFC 8707) for the provider."""
    form = await request.form()  # cached on the request, so the SDK reads the same form
    stats["token_requests"] += 1
    if form.get("grant_type") == "refresh_token":
        stats["refreshes"] += 1
    resource = form.get("resource")
    requested_resource.set(resource if isinstance(resource, str) else None)
    return await sdk_token.handle(request)


# RFC 8414 metadata as the SDK builds it, plus the flags (and the lie) the tests want.
metadata = build_metadata(auth.issuer_url, None, registration, RevocationOptions(enabled=True))
metadata = OAuthMetadata.model_validate(
    {
        **metadata.model_dump(mode="json", exclude_none=True),
        "issuer": f"{ORIGIN}/other" if args.wrong_issuer else ISSUER,
        "client_id_metadata_document_supported": True if args.cimd else None,
        "authorization_response_iss_parameter_supported": True,
        # The SDK lists only the secret methods, but accepts public (`none`) clients as well.
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
    }
)
resource_metadata = ProtectedResourceMetadata(
    resource=RESOURCE, authorization_servers=[args.advertise_as or ISSUER], scopes_supported=[SCOPE]
)
prm_endpoint = cors_middleware(ProtectedResourceMetadataHandler(resource_metadata).handle, ["GET", "OPTIONS"])
replacements = {
    "/.well-known/oauth-authorization-server": cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
    "/.well-known/oauth-protected-resource/mcp": prm_endpoint,
    "/authorize": authorize_endpoint,
    "/token": cors_middleware(token_endpoint, ["POST", "OPTIONS"]),
}


async def revoke_all(request: Request) -> Response:
    provider.revoke_all()
    return JSONResponse({"revoked": True})


async def get_stats(request: Request) -> Response:
    return JSONResponse(stats)


app = server.streamable_http_app()
routes = app.router.routes
for index, route in enumerate(routes):
    if isinstance(route, Route) and route.path in replacements:
        routes[index] = Route(route.path, replacements[route.path], methods=route.methods)
routes += [
    Route("/.well-known/oauth-protected-resource", prm_endpoint, methods=["GET", "OPTIONS"]),
    Route("/test/revoke-all", revoke_all, methods=["POST"]),
    Route("/test/stats", get_stats, methods=["GET"]),
]


async def answered_without_token(body: bytes, send) -> bool:
    """Under --lenient-start: the answers a server gives before it asks for a token."""
    try:
        message = json.loads(body) if body else {}
    except ValueError:
        return False
    method = message.get("method") if isinstance(message, dict) else None
    reply, status, extra = None, 200, []
    if method == "server/discover":
        reply = {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32601, "message": "Method not found"}}
    elif method == "initialize":
        stats["lenient_initializes"] = stats.get("lenient_initializes", 0) + 1
        reply = {
            "jsonrpc": "2.0",
            "id": message.get("id"),
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hearth-test-oauth", "version": "1"},
            },
        }
        extra = [(b"mcp-session-id", b"lenient")]
    elif method == "notifications/initialized":
        status = 202
    else:
        if method == "tools/list":
            stats["listings_without_token"] = stats.get("listings_without_token", 0) + 1
        return False
    body = json.dumps(reply).encode() if reply is not None else b""
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json"), *extra]})
    await send({"type": "http.response.body", "body": body})
    return True


def outermost(inner):
    """Log every request (--log), note whether it sent HTTP Basic client credentials, and add
    `scope` to the SDK's WWW-Authenticate challenge on /mcp."""

    async def wrapped(scope, receive, send):
        if scope["type"] != "http":
            return await inner(scope, receive, send)
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            name, value = name.decode("latin-1").lower(), value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        if args.log:
            line = {
                "method": scope["method"],
                "path": scope["path"],
                "query": scope["query_string"].decode("latin-1"),
                "headers": headers,
            }
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(line) + "\n")
        sent_basic_auth.set(headers.get("authorization", "").lower().startswith("basic "))
        if args.lenient_start and scope["path"] == "/mcp" and "authorization" not in headers:
            body, receive = await buffered(receive)
            if await answered_without_token(body, send):
                return
        if args.admin_scope and scope["path"] == "/mcp" and scope["method"] == "POST":
            body, receive = await buffered(receive)
            try:
                message = json.loads(body) if body else {}
            except ValueError:
                message = {}
            token = headers.get("authorization", "").removeprefix("Bearer ")
            granted = provider.access.get(token)
            wants_admin = (
                isinstance(message, dict)
                and message.get("method") == "tools/call"
                and (message.get("params") or {}).get("name") == "admin_report"
            )
            if wants_admin and granted is not None and ADMIN_SCOPE not in granted.scopes:
                stats["insufficient_scope"] = stats.get("insufficient_scope", 0) + 1
                challenge = (
                    f'Bearer error="insufficient_scope", scope="{SCOPE} {ADMIN_SCOPE}", '
                    f'resource_metadata="{ORIGIN}/.well-known/oauth-protected-resource/mcp"'
                )
                await send({"type": "http.response.start", "status": 403, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", challenge.encode())]})
                await send({"type": "http.response.body", "body": b'{"error":"insufficient_scope"}'})
                return
        if args.require_header and scope["path"] == "/mcp":
            name, value = args.require_header.split("=", 1)
            if headers.get(name.lower()) != value:
                stats["gateway_refusals"] += 1
                await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": b'{"error":"missing gateway header"}'})
                return

        async def send_with_scope(message):
            if message["type"] == "http.response.start" and scope["path"] == "/mcp":
                message["headers"] = [
                    (name, value + f', scope="{SCOPE}"'.encode())
                    if name.lower() == b"www-authenticate" and b"scope=" not in value
                    else (name, value)
                    for name, value in message.get("headers", [])
                ]
            await send(message)

        await inner(scope, receive, send_with_scope)

    return wrapped


uvicorn.run(outermost(app), host="127.0.0.1", port=args.port, log_level="warning", timeout_graceful_shutdown=2)
