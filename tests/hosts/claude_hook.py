"""One `claude -p` turn of Claude Code whose model calls one tool, with the
hooks the test wrote in the scratch HOME's settings.json: for tests/hosts.rs
(`ask_user hook claude-code`). The model is a scripted stand-in for the
Anthropic Messages API on 127.0.0.1 (not a model).

Reads a scenario on stdin:
  {"claude": PATH, "home": DIR, "project": DIR, "tool": NAME,
   "tool_input": {...}, "mcp": {"mcpServers": ...} or null,
   "args": [EXTRA CLAUDE ARG...], "env": {NAME: VALUE}}
and prints one JSON report: {"exit", "result", "stdout", "stderr",
"offered" (the tools the first request offered), "tool_results"}.

The stand-in answers a request that offers the tool named "tool" with a call
of it with "tool_input"; a request that carries a tool result with the text
"MOCK MODEL SAW TOOL RESULT", keeping the result for the report; anything
else with "TOOL NOT OFFERED".
"""

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The Messages API's message and stream shapes, as claude_print.py serves them.
from claude_print import events, message

lock = threading.Lock()
SCENARIO = {}
RESULTS = []
OFFERED = []


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
    with lock:
        if not OFFERED:
            OFFERED.extend(names)
    if SCENARIO["tool"] in names:
        return [{"type": "tool_use", "id": "toolu_mock_1", "name": SCENARIO["tool"],
                 "input": SCENARIO["tool_input"]}], "tool_use"
    return [{"type": "text", "text": "TOOL NOT OFFERED"}], "end_turn"


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
    SCENARIO.update(json.load(sys.stdin))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ, HOME=SCENARIO["home"],
               ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}",
               ANTHROPIC_API_KEY="dummy",
               ENABLE_TOOL_SEARCH="false",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
               DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
               **SCENARIO.get("env", {}))
    command = [SCENARIO["claude"], "-p", "Ask me which database to use.",
               "--output-format", "json"]
    if SCENARIO.get("mcp"):
        command += ["--mcp-config", json.dumps(SCENARIO["mcp"]), "--strict-mcp-config"]
    command += SCENARIO.get("args", [])
    run = subprocess.run(command, cwd=SCENARIO["project"], env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=SCENARIO.get("timeout", 120))
    server.shutdown()
    try:
        result = json.loads(run.stdout).get("result")
    except ValueError:
        result = None
    print(json.dumps({
        "exit": run.returncode, "result": result, "stdout": run.stdout[-4000:],
        "stderr": run.stderr[-4000:], "offered": OFFERED, "tool_results": RESULTS,
    }))


if __name__ == "__main__":
    main()
