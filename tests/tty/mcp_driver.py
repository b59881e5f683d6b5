"""Drives `ask_user mcp --fallback tty` over stdio from inside a pty (tests/tty_pty.rs).

The server's stdin and stdout are pipes to this driver; the pty it inherits
is its controlling terminal, where the form is drawn and keys arrive. A client
without elicitation calls the tool (id 7). With `cancel`, once the file named
by MARKER exists (the test saw the form), the driver sends
notifications/cancelled for id 7, then a ping (id 8). Writes one JSON line to
OUT: the messages received after the call, and the server's exit code.
Usage: mcp_driver.py BIN OUT MARKER answer|cancel
"""
import json
import os
import subprocess
import sys
import time

binary, out, marker, mode = sys.argv[1:5]
server = subprocess.Popen([binary, "mcp", "--fallback", "tty"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(message):
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()


def receive():
    line = server.stdout.readline()
    return json.loads(line) if line else None


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "pty-driver", "version": "1"}}})
receive()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
    "name": "ask_user", "arguments": {
        "question": "Which database?", "options": ["PostgreSQL", "SQLite", "Redis"]}}})
received = []
if mode == "cancel":
    deadline = time.monotonic() + 10
    while not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    send({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": 7, "reason": "the user pressed stop"}})
    send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
received.append(receive())
server.stdin.close()
rest = server.stdout.read().decode()
received.extend(json.loads(line) for line in rest.splitlines() if line.strip())
code = server.wait(timeout=10)
with open(out, "w") as f:
    f.write(json.dumps({"received": received, "server_rc": code}) + "\n")
