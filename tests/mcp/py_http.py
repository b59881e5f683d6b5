"""Calls `ask_user` on the inbox's /mcp (MCP over Streamable HTTP) with the
official MCP Python SDK (tests/mcp_http.rs runs it).

Reads one JSON scenario on stdin:
  {"url": "http://127.0.0.1:PORT/mcp", "token": TOKEN,
   "mode": "legacy"|"auto"|"2026-07-28",   # the SDK's protocol mode
   "calls": [{"arguments": {...}}]}
The token goes in `Authorization: Bearer` on every request (an httpx client
with that header, as the SDK documents). No elicitation is declared.
Prints one JSON line: the protocol version, the listed tools and, per call,
the result.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main() -> None:
    scenario = json.load(sys.stdin)
    headers = {"Authorization": f"Bearer {scenario['token']}"}
    out = {"results": []}
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(scenario["url"], http_client=http)
        async with Client(transport, mode=scenario.get("mode", "auto")) as client:
            session = client.session
            out["protocol_version"] = getattr(session, "protocol_version", None)
            tools = await client.list_tools()
            out["tools"] = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools.tools]
            for call in scenario.get("calls", []):
                result = await client.call_tool("ask_user", call["arguments"])
                out["results"].append({
                    "is_error": bool(result.is_error),
                    "structured": result.structured_content,
                    "texts": [block.text for block in result.content if block.type == "text"],
                })
    print(json.dumps(out, default=str))


asyncio.run(main())
