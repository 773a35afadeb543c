"""The server the conformance suite's server scenarios talk to, built on the Python SDK (`mcp`
2.3.0, pinned with the real servers in tests/peers/python/requirements-servers.txt): every tool, resource and prompt those
scenarios ask for, with the values they check, in both eras (the SDK serves 2025-11-25 sessions
and 2026-07-28 stateless requests alike). scripts/conformance.py runs the scenarios against it
directly and through `mcpguard proxy --listen`, in front of it over HTTP and over stdio; any
difference between the runs is the proxy's.

    python server.py --port PORT      # Streamable HTTP on 127.0.0.1:PORT/mcp
    python server.py --stdio          # stdio, for `mcpguard proxy --listen ... -- python server.py --stdio`

The fixture's names and values come from the scenarios' own checks (the suite's
src/scenarios/server); nothing here is tuned to mcpguard.
"""

import argparse
import asyncio
import base64
import json
from typing import Annotated, Any

from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from mcp.server.mcpserver.prompts.base import Prompt, UserMessage
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.shared.exceptions import MCPError
from mcp.types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    AudioContent,
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    InputRequest,
    InputRequiredResult,
    JSONRPCMessage,
    ListRootsRequest,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel, Field

# A 1x1 PNG and a silent WAV: the scenarios check the MIME types and that data is base64.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="


class Events(EventStore):
    """Every SSE event kept in memory, so a legacy client's GET with Last-Event-ID resumes a
    stream the server closed (server-sse-polling)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, JSONRPCMessage | None]] = []

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((stream_id, event_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        stream = next((s for s, e, _ in self.events if e == last_event_id), None)
        if stream is None:
            return None
        for s, e, message in self.events:
            if s == stream and int(e) > int(last_event_id) and message is not None:
                await send_callback(EventMessage(message, e))
        return stream


server = MCPServer(
    name="mcpguard-conformance-server",
    version="1.0.0",
    # MRTR's requestState is sealed by the SDK; a fixed fixture key (>= 32 bytes).
    request_state_security=RequestStateSecurity(keys=[b"mcpguard-conformance-fixture-key-0001"]),
)

# ---- Content of each kind (tools-call-*) ----


def text(value: str) -> TextContent:
    return TextContent(type="text", text=value)


def image() -> ImageContent:
    return ImageContent(type="image", data=PNG, mime_type="image/png")


def embedded(uri: str, value: str, mime: str = "text/plain") -> EmbeddedResource:
    return EmbeddedResource(type="resource", resource=TextResourceContents(uri=uri, mime_type=mime, text=value))


@server.tool()
def test_simple_text() -> str:
    """Answers with one text block."""
    return "This is a simple text response for testing."


@server.tool()
def test_image_content() -> list[ImageContent]:
    """Answers with one PNG image."""
    return [image()]


@server.tool()
def test_audio_content() -> list[AudioContent]:
    """Answers with one WAV clip."""
    return [AudioContent(type="audio", data=WAV, mime_type="audio/wav")]


@server.tool()
def test_embedded_resource() -> list[EmbeddedResource]:
    """Answers with an embedded text resource."""
    return [embedded("test://embedded-resource", "This is an embedded resource content.")]


@server.tool()
def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
    """Answers with text, an image and an embedded JSON resource."""
    return [
        text("Multiple content types test:"),
        image(),
        embedded("test://mixed-content-resource", '{"test": "data", "value": 123}', "application/json"),
    ]


@server.tool()
def test_error_handling() -> str:
    """Fails, so that the result is isError."""
    raise RuntimeError("This tool intentionally returns an error for testing")


# ---- Logs, progress and polling during a call ----


@server.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Logs three messages while it runs."""
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(step)  # pyright: ignore[reportDeprecated]
        await asyncio.sleep(0.05)
    return "Tool with logging executed successfully"


@server.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 of 100, then answers with the progress token."""
    for done in (0, 50, 100):
        await ctx.report_progress(progress=done, total=100, message=f"Completed step {done} of 100")
        await asyncio.sleep(0.05)
    meta = ctx.request_context.meta if ctx.request_context else None
    return str(meta.get("progress_token") if meta else 0)


@server.tool()
async def test_reconnection(ctx: Context) -> str:
    """Closes its response stream mid-call; a legacy client resumes it with Last-Event-ID."""
    await ctx.info("Before disconnect")  # pyright: ignore[reportDeprecated]
    await ctx.close_sse_stream()
    await asyncio.sleep(0.2)
    await ctx.info("After reconnect")  # pyright: ignore[reportDeprecated]
    return "Reconnection test completed"


# ---- Requests to the client, legacy style (2025-11-25) ----


@server.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model to complete the prompt."""
    try:
        result = await ctx.session.create_message(  # pyright: ignore[reportDeprecated]
            messages=[SamplingMessage(role="user", content=text(prompt))],
            max_tokens=100,
            related_request_id=ctx.request_id,
        )
    except Exception as e:  # noqa: BLE001 - the scenario reads the message
        return f"Sampling not supported or error: {e}"
    said = result.content.text if result.content.type == "text" else "No response"
    return f"LLM response: {said}"


class UserResponse(BaseModel):
    response: str = Field(description="User's response")


class Defaults(BaseModel):
    """Every primitive type with a default (SEP-1034)."""

    name: str = Field(default="John Doe", description="User name")
    age: int = Field(default=30, description="User age")
    score: float = Field(default=95.5, description="User score")
    status: str = Field(default="active", description="User status", json_schema_extra={"enum": ["active", "inactive", "pending"]})
    verified: bool = Field(default=True, description="Verification status")


class Enums(BaseModel):
    """The enum forms of SEP-1330."""

    untitledSingle: str = Field(description="Simple enum without titles", json_schema_extra={"enum": ["active", "inactive", "pending"]})
    titledSingle: str = Field(
        description="Enum with titled options (oneOf)",
        json_schema_extra={"oneOf": [{"const": v, "title": t} for v, t in (("low", "Low Priority"), ("medium", "Medium Priority"), ("high", "High Priority"))]},
    )
    untitledMulti: list[str] = Field(
        description="Multi-select without titles", json_schema_extra={"items": {"type": "string", "enum": ["read", "write", "execute"]}}
    )
    titledMulti: list[str] = Field(
        description="Multi-select with titled options",
        json_schema_extra={"items": {"anyOf": [{"const": v, "title": t} for v, t in (("feature", "New Feature"), ("bug", "Bug Fix"), ("docs", "Documentation"))]}},
    )
    legacyEnum: str = Field(
        description="Legacy enum with enumNames",
        json_schema_extra={"enum": ["small", "medium", "large"], "enumNames": ["Small Size", "Medium Size", "Large Size"]},
    )


async def elicit(ctx: Context, message: str, schema: type[BaseModel], label: str) -> str:
    try:
        result = await ctx.elicit(message=message, schema=schema)
    except Exception as e:  # noqa: BLE001 - the scenario reads the message
        return f"Elicitation not supported or error: {e}"
    content = result.data.model_dump_json() if result.action == "accept" else "{}"
    return f"{label}: action={result.action}, content={content}"


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a response."""
    return await elicit(ctx, message, UserResponse, "User response")


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Asks the user for a form whose every field has a default."""
    return await elicit(ctx, "Please provide user information", Defaults, "Elicitation result")


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks the user to choose from each kind of enum."""
    return await elicit(ctx, "Please select values using different enum schema types", Enums, "Elicitation completed")


@server.tool()
async def test_missing_capability(ctx: Context) -> str:
    """Needs the client's sampling capability: a JSON-RPC error naming it when absent."""
    caps = ctx.session.client_capabilities
    if caps is None or caps.sampling is None:
        raise MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message="This tool requires the client 'sampling' capability",
            data={"requiredCapabilities": {"sampling": {}}},
        )
    return "Client declared sampling capability; proceeding."


# ---- Requests to the client, 2026-07-28 style: input_required results (SEP-2322) ----


def ask_name(message: str = "What is your name?") -> ElicitRequest:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def ask(message: str, field: str, kind: str = "string") -> ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def sample(prompt: str, max_tokens: int) -> CreateMessageRequest:
    return CreateMessageRequest(
        params=CreateMessageRequestParams(messages=[SamplingMessage(role="user", content=text(prompt))], max_tokens=max_tokens)
    )


def answered(ctx: Context, *keys: str) -> dict[str, Any] | None:
    responses = ctx.input_responses
    return responses if responses and set(keys) <= responses.keys() else None


def form(answer: Any, field: str, default: str = "?") -> str:
    return answer.content.get(field, default) if isinstance(answer, ElicitResult) and answer.content else default


@server.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str | InputRequiredResult:
    """Asks for the user's name through an input_required result."""
    if got := answered(ctx, "user_name"):
        return f"Hello, {form(got['user_name'], 'name', 'stranger')}!"
    return InputRequiredResult(input_requests={"user_name": ask_name()})


@server.tool()
async def test_input_required_result_sampling(ctx: Context) -> str | InputRequiredResult:
    """Asks the client's model a question through an input_required result."""
    if got := answered(ctx, "capital_question"):
        answer = got["capital_question"]
        said = answer.content.text if isinstance(answer, CreateMessageResult) and answer.content.type == "text" else "?"
        return f"Model said: {said}"
    return InputRequiredResult(input_requests={"capital_question": sample("What is the capital of France?", 100)})


@server.tool()
async def test_input_required_result_list_roots(ctx: Context) -> str | InputRequiredResult:
    """Asks for the client's roots through an input_required result."""
    if got := answered(ctx, "client_roots"):
        roots = got["client_roots"]
        return f"Client exposed {len(roots.roots) if isinstance(roots, ListRootsResult) else 0} root(s)."
    return InputRequiredResult(input_requests={"client_roots": ListRootsRequest()})


@server.tool()
async def test_input_required_result_request_state(ctx: Context) -> str | InputRequiredResult:
    """Round-trips requestState with its question."""
    if answered(ctx, "confirm") and ctx.request_state == "request-state-nonce":
        return "state-ok: confirmation received"
    return InputRequiredResult(input_requests={"confirm": ask("Please confirm", "ok", "boolean")}, request_state="request-state-nonce")


@server.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> str | InputRequiredResult:
    """Asks for a name, a model's greeting and the roots at once."""
    if answered(ctx, "user_name", "greeting", "client_roots"):
        return "All inputs received."
    requests = {"user_name": ask_name(), "greeting": sample("Generate a greeting", 50), "client_roots": ListRootsRequest()}
    return InputRequiredResult(input_requests=requests, request_state="multiple-inputs")


@server.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str | InputRequiredResult:
    """Three rounds: a name, then a colour, then the answer; the state says which round."""
    state = json.loads(ctx.request_state) if ctx.request_state else {"round": 0}
    responses = ctx.input_responses or {}
    if state["round"] == 1 and "step1" in responses:
        name = form(responses["step1"], "name", None)
        return InputRequiredResult(
            input_requests={"step2": ask("Step 2: What is your favorite color?", "color")},
            request_state=json.dumps({"round": 2, "name": name}),
        )
    if state["round"] == 2 and "step2" in responses:
        return f"{state.get('name')} likes {form(responses['step2'], 'color', None)}."
    # The first round, or an answer out of order: start again.
    return InputRequiredResult(input_requests={"step1": ask_name("Step 1: What is your name?")}, request_state=json.dumps({"round": 1}))


@server.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> str | InputRequiredResult:
    """Issues requestState once; the SDK refuses an echo that was changed."""
    if ctx.request_state is None:
        return InputRequiredResult(input_requests={"confirm": ask("Please confirm", "ok", "boolean")}, request_state="round-1")
    return f"state-ok: {ctx.request_state}"


@server.tool()
async def test_input_required_result_capabilities(ctx: Context) -> InputRequiredResult:
    """Asks only for what the client declared it can give."""
    caps = ctx.client_capabilities
    requests: dict[str, InputRequest] = {}
    if caps is None or caps.sampling is not None:
        requests["sample"] = sample("Say hello", 50)
    if caps is None or caps.elicitation is not None:
        requests["ask"] = ask_name()
    return InputRequiredResult(input_requests=requests, request_state="capability-gated")


# ---- Schemas and headers ----

SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@server.tool(name="json_schema_2020_12_tool")
def json_schema_2020_12_tool() -> str:
    """Lists an inputSchema with the JSON Schema 2020-12 keywords the scenario looks for."""
    return "json_schema_2020_12_tool"


# MCPServer derives a tool's schema from its signature; this one is given whole.
server._tool_manager._tools["json_schema_2020_12_tool"].parameters = SCHEMA_2020_12  # pyright: ignore[reportPrivateUsage]


@server.tool()
def test_x_mcp_header(
    region: Annotated[str, Field(description="Mirrored into the Mcp-Param-Region header", json_schema_extra={"x-mcp-header": "Region"})] = "<none>",
) -> str:
    """A parameter mirrored into a header: the server checks that header against the body."""
    return f"region={region}"


# ---- List changes, announced on subscriptions/listen streams (2026-07-28) ----


def dynamic() -> str:
    """Added and removed again at once by the change triggers."""
    return "dynamic"


@server.tool()
async def test_trigger_tool_change(ctx: Context) -> str:
    """Changes the tool list and says so."""
    server.add_tool(dynamic, name="test_dynamic_tool")
    server.remove_tool("test_dynamic_tool")
    await ctx.notify_tools_changed()
    return "tool list changed"


@server.tool()
async def test_trigger_prompt_change(ctx: Context) -> str:
    """Changes the prompt list and says so."""
    server.add_prompt(Prompt.from_function(dynamic, name="test_dynamic_prompt", description="dynamic"))
    server.remove_prompt("test_dynamic_prompt")
    await ctx.notify_prompts_changed()
    return "prompt list changed"


# ---- Resources ----


@server.resource("test://static-text")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary")
def static_binary() -> bytes:
    """A static binary resource (the PNG)."""
    return base64.b64decode(PNG)


@server.resource("test://template/{id}/data")
def template_data(id: str) -> str:
    """A resource template: the id comes back in the data."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource("test://watched-resource")
def watched() -> str:
    """A resource a client may subscribe to."""
    return "Watched resource content"


# ---- Prompts ----


def user(content: Any) -> UserMessage:
    return UserMessage(role="user", content=content)


@server.prompt()
def test_simple_prompt() -> list[UserMessage]:
    """A prompt without arguments."""
    return [user(text("This is a simple prompt for testing."))]


@server.prompt()
def test_prompt_with_arguments(arg1: str, arg2: str) -> list[UserMessage]:
    """A prompt with two required arguments."""
    return [user(text(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))]


@server.prompt()
def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:
    """A prompt that embeds the resource it is given."""
    return [user(embedded(resourceUri, "Embedded resource content for testing.")), user(text("Please process the embedded resource above."))]


@server.prompt()
def test_prompt_with_image() -> list[UserMessage]:
    """A prompt with an image."""
    return [user(image()), user(text("Please analyze the image above."))]


@server.prompt()
async def test_input_required_result_prompt(ctx: Context) -> list[UserMessage] | InputRequiredResult:
    """A prompt that first asks the user for context (input_required outside tools/call)."""
    if got := answered(ctx, "user_context"):
        return [user(text(f"Use the following context: {form(got['user_context'], 'context')}"))]
    return InputRequiredResult(input_requests={"user_context": ask("What context should the prompt use?", "context")})


# ---- Legacy requests the SDK leaves to the server: log level, resource subscriptions ----

subscribed: set[str] = set()


async def set_level(ctx: ServerRequestContext, params: SetLevelRequestParams) -> EmptyResult:
    return EmptyResult()


async def subscribe(ctx: ServerRequestContext, params: SubscribeRequestParams) -> EmptyResult:
    subscribed.add(str(params.uri))
    return EmptyResult()


async def unsubscribe(ctx: ServerRequestContext, params: UnsubscribeRequestParams) -> EmptyResult:
    subscribed.discard(str(params.uri))
    return EmptyResult()


for method, params, handler in (
    ("logging/setLevel", SetLevelRequestParams, set_level),
    ("resources/subscribe", SubscribeRequestParams, subscribe),
    ("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe),
):
    server._lowlevel_server.add_request_handler(method, params, handler)  # pyright: ignore[reportPrivateUsage]


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, context: CompletionContext | None
) -> Completion:
    """No suggestions: the scenario checks the answer's shape."""
    return Completion(values=[], total=0, has_more=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--stdio", action="store_true", help="serve stdio")
    args = parser.parse_args()
    if args.stdio:
        server.run("stdio")
    elif args.port:
        # A short retry interval, so legacy clients resume a closed stream quickly.
        server.run("streamable-http", host="127.0.0.1", port=args.port, event_store=Events(), retry_interval=100)
    else:
        parser.error("give --port PORT or --stdio")


if __name__ == "__main__":
    main()
