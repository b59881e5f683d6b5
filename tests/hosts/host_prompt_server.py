"""A stand-in for Claude Code's own permission prompt in `claude -p`, for
tests/hosts.rs: an MCP server (the MCP Python SDK) with one tool, `prompt`,
that Claude Code calls through `--permission-prompt-tool
mcp__host__prompt` whenever it would show its own UI. It records the request
to the file named by HOST_PROMPT_SEEN and denies it with the message "THE
HOST'S OWN UI". (Print mode offers AskUserQuestion only when such a tool is
set.)
"""

import json
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("host")


@server.tool(structured_output=False)
def prompt(tool_name: str, input: dict, tool_use_id: str = "") -> str:
    """Answers a permission request as the host's own UI would."""
    with open(os.environ["HOST_PROMPT_SEEN"], "a") as seen:
        seen.write(json.dumps({"tool_name": tool_name, "input": input}) + "\n")
    return json.dumps({"behavior": "deny", "message": "THE HOST'S OWN UI"})


if __name__ == "__main__":
    server.run()
