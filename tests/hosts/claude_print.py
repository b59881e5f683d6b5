"""One `claude -p` turn of Claude Code against a scripted stand-in for the
Anthropic Messages API on 127.0.0.1 (not a model), for tests/hosts.rs.

Reads a scenario on stdin:
  {"claude": PATH, "server": [COMMAND, ARG...], "home": DIR, "project": DIR,
   "tool_input": {...}, "hook": {"action": ..., "content"?: ...} or null}
and prints one JSON report: {"exit", "result", "stderr", "tool_results",
"hook_input", "traffic"}.

The stand-in answers a request that offers a tool whose name ends in
"__ask_user" (the MCP tool as Claude Code names it) with a call of that tool
with "tool_input"; a request that carries a tool result with the text
"MOCK MODEL SAW TOOL RESULT", keeping the result for the report; anything else
with "ok". With "hook", Claude Code's Elicitation hook (elicitation_hook.py)
answers the server's form with it; the MCP server's stdin is
recorded ("traffic": the client's messages, one per line).
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import os
import shlex
import subprocess

lock = threading.Lock()
TOOL_INPUT = {}
RESULTS = []


def reply_for(request):
    """The content blocks and stop reason the stand-in answers with."""
    messages = request.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last.get("content"), list) else []
    results = [block for block in content if block.get("type") == "tool_result"]
    if results:
        with lock:
            RESULTS.extend({"is_error": bool(block.get("is_error")),
                            "content": block.get("content")} for block in results)
        return [{"type": "text", "text": "MOCK MODEL SAW TOOL RESULT"}], "end_turn"
    names = [tool.get("name", "") for tool in request.get("tools") or []]
    ours = [name for name in names if name.endswith("__ask_user")]
    if ours:
        return [{"type": "tool_use", "id": "toolu_mock_1", "name": ours[0],
                 "input": TOOL_INPUT}], "tool_use"
    return [{"type": "text", "text": "ok"}], "end_turn"


def message(blocks, stop_reason, model):
    return {"id": "msg_mock", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10}}


def events(blocks, stop_reason, model):
    """The server-sent events of a streamed message."""
    start = message([], None, model)
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "text_delta", "text": block["text"]}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {**block, "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "input_json_delta",
                                                    "partial_json": json.dumps(block["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                            "usage": {"output_tokens": 10}}
    yield "message_stop", {"type": "message_stop"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                        "message": "not in the stand-in"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return self.send_json(200, {"input_tokens": 10})
        if not path.endswith("/v1/messages"):
            return self.do_GET()
        request = json.loads(body or b"{}")
        blocks, stop_reason = reply_for(request)
        model = request.get("model", "mock")
        if not request.get("stream"):
            return self.send_json(200, message(blocks, stop_reason, model))
        stream = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                         for name, data in events(blocks, stop_reason, model)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(stream)))
        self.end_headers()
        self.wfile.write(stream)


def main():
    scenario = json.load(sys.stdin)
    TOOL_INPUT.update(scenario["tool_input"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()

    home, project = scenario["home"], scenario["project"]
    traffic = os.path.join(home, "traffic.jsonl")
    seen = os.path.join(home, "hook-input.json")
    here = os.path.dirname(os.path.abspath(__file__))
    # The server's stdin is copied to `traffic` on its way in.
    server_command = ["sh", "-c", 'tee -a "$0" | exec "$@"', traffic] + scenario["server"]
    mcp = {"mcpServers": {"ask_user": {"command": server_command[0], "args": server_command[1:]}}}
    settings = {}
    if scenario.get("hook"):
        hook = "python3 " + shlex.quote(os.path.join(here, "elicitation_hook.py"))
        settings = {"hooks": {"Elicitation": [{"hooks": [{"type": "command", "command": hook}]}]}}
    env = dict(os.environ, HOME=home,
               ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}",
               ANTHROPIC_API_KEY="dummy",
               # Offer the MCP tool to the model directly, not through tool search.
               ENABLE_TOOL_SEARCH="false",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
               DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
               HOOK_SEEN=seen, HOOK_REPLY=json.dumps(scenario.get("hook") or {}))
    run = subprocess.run(
        [scenario["claude"], "-p", "Ask me which database to use.",
         "--mcp-config", json.dumps(mcp), "--strict-mcp-config",
         "--settings", json.dumps(settings),
         "--allowedTools", "mcp__ask_user__ask_user", "--output-format", "json"],
        cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120)
    server.shutdown()
    try:
        result = json.loads(run.stdout).get("result")
    except ValueError:
        result = None
    report = {
        "exit": run.returncode, "result": result, "stdout": run.stdout[-2000:],
        "stderr": run.stderr[-2000:], "tool_results": RESULTS,
        "hook_input": json.load(open(seen)) if os.path.exists(seen) else None,
        "traffic": [json.loads(line) for line in open(traffic)] if os.path.exists(traffic) else [],
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
