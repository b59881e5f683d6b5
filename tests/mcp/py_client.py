"""Drives `ask_user mcp` with the official MCP Python SDK (tests/mcp.rs runs it).

Reads one JSON scenario on stdin:
  {"binary": PATH, "server_args": [...], "mode": "legacy"|"auto",
   "elicit": true|false,            # declare elicitation (an elicitation callback)
   "calls": [{"arguments": {...}, "reply": {"action": ..., "content": ...}, "delay": seconds}]}
and prints one JSON line: the protocol version, the listed tools and, per
call, the result plus the form the server asked the callback to show.
"""

import asyncio
import json
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    scenario = json.load(sys.stdin)
    calls = scenario.get("calls", [])
    forms = []  # what the server asked to show, in order
    current = {"index": 0}

    async def answer(_context, params):
        call = calls[current["index"]]
        forms.append({
            "message": params.message,
            "requested_schema": params.requested_schema,
        })
        await asyncio.sleep(call.get("delay", 0))
        reply = call["reply"]
        return types.ElicitResult(action=reply["action"], content=reply.get("content"))

    server = StdioServerParameters(command=scenario["binary"], args=scenario.get("server_args", ["mcp"]))
    kwargs = {"mode": scenario["mode"]}
    if scenario.get("elicit", True):
        kwargs["elicitation_callback"] = answer
    out = {"results": []}
    async with Client(server, **kwargs) as client:
        out["protocol_version"] = client.session.protocol_version if hasattr(client.session, "protocol_version") else None
        tools = await client.list_tools()
        out["tools"] = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools.tools]
        for index, call in enumerate(calls):
            current["index"] = index
            before = len(forms)
            result = await client.call_tool("ask_user", call["arguments"])
            out["results"].append({
                "is_error": bool(result.is_error),
                "structured": result.structured_content,
                "texts": [block.text for block in result.content if block.type == "text"],
                "forms": forms[before:],
            })
    print(json.dumps(out))


asyncio.run(main())
