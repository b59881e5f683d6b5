"""A scripted stand-in for a model (not a model), for tests/hosts.rs and
tests/hosts_hooks.rs: serves the Anthropic Messages API (Claude Code), the
OpenAI Responses API (Codex) and Gemini's streamGenerateContent (Gemini CLI)
on 127.0.0.1, all streamed.

It prints {"port": N} on stdout once it listens, then one JSON line per event
the test waits for:
  {"event": "call", "api": "anthropic"|"openai"|"gemini", "input": {...}, "tools": [...]}
      it answered a person's message with a call of the host's ask_user tool;
      "tools" names every tool the host offered in that request (a Codex
      namespace's tools as "NAMESPACE/TOOL", a tool without a name by its type);
  {"event": "result", "api": ..., "is_error": bool|null, "content": ...}
      it received that call's result (what the host gives the model).

The script: a request whose last message carries a tool result is answered
with the text "MOCK MODEL SAW TOOL RESULT" (the turn ends), once a line
arrives on stdin: until then the host waits for its model, so the test looks
at what the call left behind while the host (and its MCP server) still runs.
A person's message naming "question ID" (the id the inbox shows) is answered
with a call {"resume": ID}; one naming "your own ask tool" with a call of the
host's own ask tool (Codex's request_user_input, Gemini CLI's ask_user) when
the request offers it, asking HOST_QUESTIONS' question; any other with a call
asking QUESTION. A request
that offers no ask_user tool (a host's side request) gets "ok". With
STAND_IN_DEBUG set, each request's path, tools and last message go to stderr.
"""

import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from claude_print import events as anthropic_events
from claude_print import message as anthropic_message

QUESTION = {"question": "Which database should we use?", "options": ["SQLite", "Postgres"]}
# A person's message naming "your own ask tool" is answered with a call of
# the host's own ask tool, in that host's shape (tests/hosts_hooks.rs).
OWN_ASK_TOOL = "your own ask tool"
HOST_QUESTIONS = {
    # Codex's request_user_input.
    "request_user_input": {"questions": [{
        "id": "db", "header": "Database", "question": "Which database should we use?",
        "options": [{"label": "SQLite", "description": "A file beside the code"},
                    {"label": "Postgres", "description": "A server"}]}]},
    # Gemini CLI's ask_user.
    "ask_user": {"questions": [{
        "header": "Database", "question": "Which database should we use?", "type": "choice",
        "options": [{"label": "SQLite", "description": "A file beside the code"},
                    {"label": "Postgres", "description": "A server"}]}]},
}


def own_ask_tool(names, text):
    """The host's own ask tool among `names` when the person asked for it."""
    if OWN_ASK_TOOL not in text:
        return None
    return next((name for name in names if name in HOST_QUESTIONS), None)
RESUME = re.compile(r"\bquestion ([0-9a-z]{8})\b")

lock = threading.Lock()
calls = 0
# One release per line on stdin; all of them once stdin closes (the test is over).
go_on = threading.Semaphore(0)


def read_go_ons():
    for _ in sys.stdin:
        go_on.release()
    go_on.release(1 << 20)


def report(event):
    with lock:
        print(json.dumps(event), flush=True)


def next_call_id():
    global calls
    with lock:
        calls += 1
        return calls


def tool_input(text):
    """The ask_user input the stand-in sends for a person's message."""
    resume = RESUME.search(text)
    return {"resume": resume.group(1)} if resume else QUESTION


def texts(blocks):
    if isinstance(blocks, str):
        return blocks
    return " ".join(block.get("text", "") for block in blocks or [] if isinstance(block, dict))


# ---- Anthropic Messages (Claude Code) ----

def anthropic_reply(request):
    """The content blocks and stop reason for a Messages request."""
    # Claude Code may append a message of its own with the role "system".
    messages = [m for m in request.get("messages") or [] if m.get("role") != "system"]
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last.get("content"), list) else []
    results = [block for block in content if block.get("type") == "tool_result"]
    for block in results:
        report({"event": "result", "api": "anthropic", "is_error": block.get("is_error"),
                "content": block.get("content")})
    if results:
        go_on.acquire()
        return [{"type": "text", "text": "MOCK MODEL SAW TOOL RESULT"}], "end_turn"
    names = [tool.get("name", "") for tool in request.get("tools") or []]
    ours = [name for name in names if name.endswith("__ask_user")]
    if not ours or last.get("role") != "user":
        return [{"type": "text", "text": "ok"}], "end_turn"
    arguments = tool_input(texts(last.get("content")))
    report({"event": "call", "api": "anthropic", "input": arguments, "tools": names})
    call = {"type": "tool_use", "id": f"toolu_mock_{next_call_id()}", "name": ours[0],
            "input": arguments}
    return [call], "tool_use"


# ---- OpenAI Responses (Codex) ----

def openai_tool(request):
    """The ask_user function as the model calls it: (namespace or None, name)."""
    for tool in request.get("tools") or []:
        if tool.get("type") == "namespace" and tool.get("name", "").endswith("__ask_user"):
            for inner in tool.get("tools") or []:
                if inner.get("name") == "ask_user":
                    return tool["name"], "ask_user"
        if tool.get("type") == "function" and tool.get("name", "").endswith("__ask_user"):
            return None, tool["name"]
    return None


def openai_tool_names(request):
    """Every tool a Responses request offers, a namespace's as "NAMESPACE/TOOL"."""
    names = []
    for tool in request.get("tools") or []:
        name = tool.get("name") or tool.get("type")
        if tool.get("type") == "namespace":
            names.extend(f"{name}/{inner.get('name')}" for inner in tool.get("tools") or [])
        else:
            names.append(name)
    return names


def openai_items(request):
    """The output items for a Responses request."""
    items = request.get("input") or []
    last = items[-1] if items else {}
    if last.get("type") == "function_call_output":
        output = last.get("output")
        # A plain string, or {"content": ..., "success": ...}, or content items.
        success = output.get("success") if isinstance(output, dict) else None
        report({"event": "result", "api": "openai",
                "is_error": None if success is None else not success, "content": output})
        go_on.acquire()
        return [text_item("MOCK MODEL SAW TOOL RESULT")]
    names = openai_tool_names(request)
    own = own_ask_tool(names, texts(last.get("content"))) if last.get("role") == "user" else None
    if own:
        arguments = HOST_QUESTIONS[own]
        report({"event": "call", "api": "openai", "input": arguments, "tools": names})
        number = next_call_id()
        return [{"type": "function_call", "id": f"fc_mock_{number}",
                 "call_id": f"call_mock_{number}", "name": own,
                 "arguments": json.dumps(arguments), "status": "completed"}]
    tool = openai_tool(request)
    if tool is None or last.get("role") != "user":
        return [text_item("ok")]
    arguments = tool_input(texts(last.get("content")))
    report({"event": "call", "api": "openai", "input": arguments,
            "tools": openai_tool_names(request)})
    namespace, name = tool
    number = next_call_id()
    call = {"type": "function_call", "id": f"fc_mock_{number}", "call_id": f"call_mock_{number}",
            "name": name, "arguments": json.dumps(arguments), "status": "completed"}
    if namespace:
        call["namespace"] = namespace
    return [call]


def text_item(text):
    return {"type": "message", "id": "msg_mock", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def openai_events(items):
    response = {"id": "resp_mock", "object": "response", "status": "in_progress", "output": []}
    yield "response.created", {"type": "response.created", "response": response}
    for index, item in enumerate(items):
        yield "response.output_item.added", {"type": "response.output_item.added",
                                             "output_index": index, "item": item}
        yield "response.output_item.done", {"type": "response.output_item.done",
                                            "output_index": index, "item": item}
    done = dict(response, status="completed", output=items,
                usage={"input_tokens": 10, "output_tokens": 10, "total_tokens": 20})
    yield "response.completed", {"type": "response.completed", "response": done}


# ---- Gemini generateContent (Gemini CLI) ----

def gemini_parts(request):
    """The model's parts for a streamGenerateContent request."""
    contents = request.get("contents") or []
    last = contents[-1] if contents else {}
    parts = last.get("parts") or []
    responses = [part["functionResponse"] for part in parts if "functionResponse" in part]
    for response in responses:
        body = response.get("response") or {}
        report({"event": "result", "api": "gemini", "is_error": "error" in body,
                "content": body.get("error", body.get("output", body))})
    if responses:
        go_on.acquire()
        return [{"text": "MOCK MODEL SAW TOOL RESULT"}]
    names = [declaration.get("name") for tool in request.get("tools") or []
             for declaration in tool.get("functionDeclarations") or []]
    own = own_ask_tool(names, texts(parts)) if last.get("role") == "user" else None
    if not own:
        return [{"text": "ok"}]
    arguments = HOST_QUESTIONS[own]
    report({"event": "call", "api": "gemini", "input": arguments, "tools": names})
    return [{"functionCall": {"name": own, "args": arguments,
                              "id": f"call_mock_{next_call_id()}"}}]


def gemini_response(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10,
                              "totalTokenCount": 20},
            "modelVersion": "stand-in"}


def gemini_side_reply(request):
    """A Gemini CLI side request (routing, next-speaker check): a short JSON
    answer where a schema asks for one, else "ok"."""
    config = request.get("generationConfig") or {}
    if config.get("responseJsonSchema") or config.get("responseSchema"):
        text = json.dumps({"reasoning": "stand-in", "next_speaker": "user",
                           "model_choice": "flash"})
    else:
        text = "ok"
    return gemini_response([{"text": text}])


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

    def send_events(self, named_events):
        stream = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                         for name, data in named_events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(stream)))
        self.end_headers()
        self.wfile.write(stream)

    def do_GET(self):
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                        "message": "not in the stand-in"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if os.environ.get("STAND_IN_DEBUG"):
            tools = [tool.get("name") for tool in request.get("tools") or []]
            last = (request.get("messages") or request.get("input")
                    or request.get("contents") or [{}])[-1]
            seen = {"path": self.path, "tools": tools, "last": last}
            print(json.dumps(seen), file=sys.stderr, flush=True)
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return self.send_json(200, {"input_tokens": 10})
        if path.endswith("/v1/messages"):
            blocks, stop_reason = anthropic_reply(request)
            model = request.get("model", "mock")
            if not request.get("stream"):
                return self.send_json(200, anthropic_message(blocks, stop_reason, model))
            return self.send_events(anthropic_events(blocks, stop_reason, model))
        if path.endswith("/v1/responses"):
            return self.send_events(openai_events(openai_items(request)))
        if path.endswith(":streamGenerateContent"):
            stream = f"data: {json.dumps(gemini_response(gemini_parts(request)))}\r\n\r\n"
            data = stream.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return self.wfile.write(data)
        if path.endswith(":generateContent"):
            return self.send_json(200, gemini_side_reply(request))
        if path.endswith(":countTokens"):
            return self.send_json(200, {"totalTokens": 10})
        return self.do_GET()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=read_go_ons, daemon=True).start()
    report({"port": server.server_address[1]})
    server.serve_forever()


if __name__ == "__main__":
    main()
