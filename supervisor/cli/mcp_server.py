"""``supervisor-ctl mcp``: the tools of mcp_tools served over stdio with the MCP SDK.

Only this command imports the SDK (an optional extra); the daemon never does. Every failure of a
tool call comes back as a tool error the model can read, never as a crash of this server.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
from typing import Any

import anyio
import jsonschema
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from .. import __version__
from .mcp_link import DaemonLink, ToolError
from .mcp_tools import BY_NAME, Answer, Call, Tool, offered

log = logging.getLogger("supervisor.mcp")

INSTRUCTIONS = (
    "gpu-node-supervisor runs and watches LLM inference servers (SGLang, vLLM) on this GPU "
    "node: it launches a profile, follows its startup phases, declares a verdict (ready, "
    "crashed, hung, with the cause and evidence) and, when a profile's changes break the "
    "launch, finds the culprits and keeps a working configuration serving. Start with the "
    "brief resource (or the brief tool) and status. To launch, call switch with wait: it "
    "returns the verdict itself, so never poll the server. A peer the daemon lets only read "
    "is offered the reading tools only.")

STATUS_URI = "supervisor://status"
BRIEF_URI = "supervisor://brief"
RESOURCES = [
    types.Resource(uri=BRIEF_URI, name="brief", title="Handoff brief", mime_type="text/markdown",
                   description="What runs and how it was decided, past runs and verdicts, "
                               "culprits, benchmarks and open checklist items: read it first."),
    types.Resource(uri=STATUS_URI, name="status", title="Live status",
                   mime_type="application/json",
                   description="The daemon's status now: run, phase, verdict, checklist, GPUs, "
                               "fallback (the status tool's JSON)."),
]


def build_server(link: DaemonLink) -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_describe(t) for t in
                                            offered(await link.can_mutate())])

    async def call_tool(ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        return await _call(link, ctx, params.name, params.arguments or {})

    async def list_resources(ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None,
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=RESOURCES)

    async def read_resource(ctx: ServerRequestContext[Any],
                            params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return await _read(link, str(params.uri))

    return Server("gpu-node-supervisor", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource)


def _describe(tool: Tool) -> types.Tool:
    return types.Tool(name=tool.name, title=tool.title, description=tool.description,
                      input_schema=tool.schema,
                      annotations=types.ToolAnnotations(
                          title=tool.title, read_only_hint=tool.read_only,
                          destructive_hint=tool.mutating, open_world_hint=False))


async def _call(link: DaemonLink, ctx: ServerRequestContext[Any], name: str,
                args: dict[str, Any]) -> types.CallToolResult:
    tool = BY_NAME.get(name)
    try:
        if tool is None:
            raise ToolError(f"no tool named {name!r}; known: {', '.join(BY_NAME)}")
        _check_arguments(tool, args)
        answer = await tool.handler(Call(link, _progress(ctx)), args)
    except ToolError as exc:
        return _error(str(exc))
    except Exception as exc:  # a bug of ours is the model's error to read, not our end
        log.exception("tool %s failed", name)
        return _error(f"{name} failed inside the MCP server: {type(exc).__name__}: {exc}")
    return _result(answer, link.news())


def _check_arguments(tool: Tool, args: dict[str, Any]) -> None:
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(tool.schema).iter_errors(args))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise ToolError(f"{tool.name}: bad arguments: {error.message}"
                        + (f" (at {where})" if where else "") + "; see the tool's input schema")


def _progress(ctx: ServerRequestContext[Any]) -> Any:
    """A callback that sends each line as a progress notification (when the caller asked)."""
    count = itertools.count(1)

    async def report(line: str) -> None:
        try:
            await ctx.session.report_progress(next(count), None, line)
        except Exception:  # the caller went away: the answer itself still matters
            log.debug("progress notification not sent", exc_info=True)
    return report


def _result(answer: Answer, news: str) -> types.CallToolResult:
    body = f"note: {news}\n{answer.text}" if news else answer.text
    return types.CallToolResult(content=[types.TextContent(text=body)],
                                structured_content=answer.data)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


async def _read(link: DaemonLink, uri: str) -> types.ReadResourceResult:
    try:
        if uri == STATUS_URI:
            body, mime = json.dumps(await link.request("status"), indent=1), "application/json"
        elif uri == BRIEF_URI:
            body, mime = (await link.request("brief"))["markdown"], "text/markdown"
        else:
            raise ToolError(f"no resource {uri}; known: {STATUS_URI}, {BRIEF_URI}")
    except ToolError as exc:
        raise MCPError(types.INVALID_PARAMS if uri not in (STATUS_URI, BRIEF_URI)
                       else types.INTERNAL_ERROR, str(exc)) from None
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=body)])


def serve(socket_path: str) -> int:
    """Serve MCP on stdin/stdout until the client closes them; logs go to stderr."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="supervisor-ctl mcp: %(message)s")
    server = build_server(DaemonLink(socket_path))

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    anyio.run(main)
    return 0
