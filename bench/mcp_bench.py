"""Latency and memory of `ask_user mcp` over stdio (run by bench/mcp.sh).

One server process, raw JSON-RPC lines (no SDK, so the figures are the
server's): median round trip of 1,000 tools/list and 1,000 non-blocking
tools/call (the client declares no elicitation, so --fallback prompt answers
at once), against a baseline measured in the same run: 1,000 pings on the
same server. Then the server's peak RSS (VmHWM) and, for scale, the median
of spawning `ask_user prompt` once per question (the toolbox way).
"""

import json
import statistics
import subprocess
import sys
import time

binary = sys.argv[1]
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1000

# Buffered pipes (an unbuffered readline reads one byte per syscall); each
# write is flushed.
server = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
next_id = 0


def roundtrip(method, params=None):
    global next_id
    next_id += 1
    message = {"jsonrpc": "2.0", "id": next_id, "method": method}
    if params is not None:
        message["params"] = params
    line = (json.dumps(message) + "\n").encode()
    start = time.perf_counter()
    server.stdin.write(line)
    server.stdin.flush()
    reply = server.stdout.readline()
    elapsed = time.perf_counter() - start
    reply = json.loads(reply)
    assert reply.get("id") == next_id and "error" not in reply, reply
    return elapsed


roundtrip("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "0"}})
server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
server.stdin.flush()

question = {"question": "Which database should the cache use?",
            "context": "Both work; this decides the deployment.",
            "options": [{"label": "PostgreSQL", "description": "already deployed", "recommended": True},
                        {"label": "SQLite", "description": "no server"}]}
for _ in range(50):  # warm-up
    roundtrip("tools/list")

ping = [roundtrip("ping") for _ in range(calls)]
tools_list = [roundtrip("tools/list") for _ in range(calls)]
tools_call = [roundtrip("tools/call", {"name": "ask_user", "arguments": question}) for _ in range(calls)]

with open(f"/proc/{server.pid}/status") as status:
    peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
server.stdin.close()
server.wait()

spawn = []
payload = json.dumps(question).encode()
for _ in range(100):
    start = time.perf_counter()
    subprocess.run([binary, "prompt"], input=payload, stdout=subprocess.DEVNULL, check=True)
    spawn.append(time.perf_counter() - start)


def ms(samples):
    return statistics.median(samples) * 1000


base = ms(ping)
print(f"calls per method:                 {calls}")
print(f"ping (baseline) median:           {base:.3f} ms")
print(f"tools/list median:                {ms(tools_list):.3f} ms  ({ms(tools_list) / base:.2f}x ping)")
print(f"tools/call (fallback) median:     {ms(tools_call):.3f} ms  ({ms(tools_call) / base:.2f}x ping)")
print(f"spawn `ask_user prompt` median:   {ms(spawn):.3f} ms  ({ms(spawn) / ms(tools_call):.1f}x a tools/call), 100 runs")
print(f"server peak RSS (VmHWM):          {peak_kib / 1024:.1f} MiB")
