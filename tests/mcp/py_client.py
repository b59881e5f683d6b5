"""Drives `ask_user mcp` with the official MCP Python SDK (tests/mcp.rs runs it).

Reads one JSON scenario on stdin:
  {"binary": PATH, "server_args": [...], "mode": "legacy"|"auto",
   "elicit": true|false,            # declare elicitation (an elicitation callback)
   "calls": [{"arguments": {...}, "reply": {"action": ..., "content": ...}, "delay": seconds,
              "hold": true}],     # hold: never reply; only the server can end the form
   "watch": URL_FILE,               # optional: follow log notices and progress, and
                                    # write the first answer-page URL they carry to URL_FILE
   "log_level": LEVEL}              # optional: the 2026-07-28 per-request log opt-in
and prints one JSON line: the protocol version, the listed tools and, per
call, the result plus the form the server asked the callback to show (and,
when watching, the log notices and progress messages the server sent).
"""

import asyncio
import json
import os
import re
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def page_closed(url: str) -> bool:
    """Whether the answer page's port stops listening (within 2 s) while the server runs."""
    port = int(re.search(r":(\d+)/", url).group(1))
    for _ in range(100):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return True
        writer.close()
        await asyncio.sleep(0.02)
    return False


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
        if call.get("hold"):
            # The server withdraws the form (notifications/cancelled), which cancels this.
            await asyncio.Event().wait()
        await asyncio.sleep(call.get("delay", 0))
        reply = call["reply"]
        return types.ElicitResult(action=reply["action"], content=reply.get("content"))

    watch = scenario.get("watch")
    logs = []  # log notices, in order
    progress = []  # progress messages of the current call

    def publish(text) -> None:
        # The first URL wins; written whole (rename) so the reader never sees half.
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[0-9a-f]+", text or "")
        if watch and found and not os.path.exists(watch):
            with open(watch + ".part", "w") as part:
                part.write(found.group(0))
            os.rename(watch + ".part", watch)

    async def on_log(params) -> None:
        logs.append({"level": params.level, "logger": params.logger, "data": params.data})
        publish(params.data if isinstance(params.data, str) else json.dumps(params.data))

    async def on_progress(value, total, message) -> None:
        progress.append({"progress": value, "total": total, "message": message})
        publish(message)

    server = StdioServerParameters(command=scenario["binary"], args=scenario.get("server_args", ["mcp"]))
    kwargs = {"mode": scenario["mode"]}
    if scenario.get("elicit", True):
        kwargs["elicitation_callback"] = answer
    if watch:
        kwargs["logging_callback"] = on_log
    if scenario.get("log_level"):
        kwargs["log_level"] = scenario["log_level"]
    out = {"results": []}
    async with Client(server, **kwargs) as client:
        out["protocol_version"] = client.session.protocol_version if hasattr(client.session, "protocol_version") else None
        tools = await client.list_tools()
        out["tools"] = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools.tools]
        for index, call in enumerate(calls):
            current["index"] = index
            before = len(forms)
            progress.clear()
            result = await client.call_tool(
                "ask_user", call["arguments"], progress_callback=on_progress if watch else None
            )
            out["results"].append({
                "progress": list(progress),
                "is_error": bool(result.is_error),
                "structured": result.structured_content,
                "texts": [block.text for block in result.content if block.type == "text"],
                "forms": forms[before:],
            })
            if watch and os.path.exists(watch):
                out["results"][-1]["page_closed"] = await page_closed(open(watch).read())
    out["logs"] = logs
    print(json.dumps(out))


asyncio.run(main())
