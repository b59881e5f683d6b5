"""Claude Code's `Elicitation` hook for tests/hosts.rs: plays the person.

Saves the hook input (the form Claude Code received from the MCP server) to
the file named by HOOK_SEEN, and answers the form with HOOK_REPLY, a JSON
object {"action": "accept"|"decline"|"cancel", "content"?: {...}}.
"""

import json
import os
import sys

with open(os.environ["HOOK_SEEN"], "w") as out:
    out.write(sys.stdin.read())
reply = json.loads(os.environ["HOOK_REPLY"])
print(json.dumps({"hookSpecificOutput": {"hookEventName": "Elicitation", **reply}}))
