"""An MCP server behind a real OAuth login, for mcpguard's sign-in tests.

The authorization server is the Python SDK's own (mcp 2.x `mcp.server.auth`: metadata, dynamic
registration, /authorize with PKCE, /token with authorization_code and refresh_token, /revoke,
RFC 8707 `resource`), mounted beside the MCP endpoint it protects (RFC 9728 metadata, 401 with
`WWW-Authenticate`, audience checked). What this file adds is the provider's storage, in
memory, and a user who approves at once: /authorize redirects straight back with a code, so a
fetching BROWSER command completes the login headless, as in the conformance suite.

For the tests: every access token lives --token-ttl seconds; /admin/stats counts the
authorization requests and the token grants; POST /admin/expire ends every access token at
once (the next MCP request gets a 401, and a refresh token still works). Two tools: `whoami`
(small) and `big_log` (a log of N lines, for the proxy to shrink).

    python tests/oauth/server.py --port 8765      # http://127.0.0.1:8765/mcp
"""

import argparse
import secrets
import time

from mcp.server.auth.handlers import revoke
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse

SCOPE = "mcp:tools"

# The SDK's /revoke wants `client_secret` in the form even from a public client, which has none
# (RFC 7009 section 2.1 and RFC 6749 section 2.3: a public client sends its client_id alone).
# Relaxed here, so a public client (what mcpguard registers as) can revoke as the RFCs allow.
revoke.RevocationRequest.model_fields["client_secret"].default = None
revoke.RevocationRequest.model_rebuild(force=True)


class ApprovingProvider:
    """In-memory storage for the SDK's authorization server; the user always approves."""

    def __init__(self, token_ttl: int) -> None:
        self.token_ttl = token_ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.stats = {"registrations": 0, "authorizations": 0, "codeGrants": 0, "refreshGrants": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.stats["registrations"] += 1
        assert client_info.client_id
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.stats["authorizations"] += 1
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="test-user",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found and found.client_id == client.client_id else None

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = secrets.token_urlsafe(24)
        refresh = secrets.token_urlsafe(24)
        expires_at = int(time.time()) + self.token_ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access, expires_in=self.token_ttl, scope=" ".join(scopes), refresh_token=refresh
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "the code was used already")
        self.stats["codeGrants"] += 1
        return self._issue(authorization_code.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        # Rotated: the old refresh token is spent.
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "the refresh token was used already")
        self.stats["refreshGrants"] += 1
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at <= time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def build(port: int, token_ttl: int) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    provider = ApprovingProvider(token_ttl)
    server = MCPServer(
        name="oauth-test-server",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=True,
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Says that the caller is signed in."""
        return "signed in as test-user"

    @server.tool()
    def big_log(lines: int = 2000) -> str:
        """A service log of `lines` lines."""
        levels = ["INFO", "INFO", "INFO", "WARN", "INFO", "ERROR"]
        return "\n".join(
            f"2026-11-24T10:{i // 60 % 60:02d}:{i % 60:02d}Z {levels[i % len(levels)]} worker-{i % 7} "
            f"request {i} handled in {i * 37 % 900} ms for tenant t-{i % 13}"
            for i in range(lines)
        )

    @server.custom_route("/admin/stats", methods=["GET"])
    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(provider.stats)

    @server.custom_route("/admin/expire", methods=["POST"])
    async def expire(request: Request) -> JSONResponse:
        ended = len(provider.access)
        provider.access.clear()
        return JSONResponse({"expired": ended})

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-ttl", type=int, default=3600)
    args = parser.parse_args()
    build(args.port, args.token_ttl).run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
