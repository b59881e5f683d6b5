"""The answer page under 200 idle hostile connections (run by bench/web_hostile.sh).

For each of RUNS questions: the page is started (`ask --ui web`, or one
`tools/call` on a single `mcp --fallback web` server), HOSTILE connections
without the token are opened and held (half of them silent, half with an
unfinished request head), then the person's answer is posted with the token.
Measured: the answer's round trip (connect to the whole response), the same
without hostile connections in the same run (the baseline), the server's
RSS with the connections open, and its peak RSS (VmHWM).

Usage: web_hostile.py BINARY [web|mcp] [RUNS] [HOSTILE]
"""

import json
import re
import socket
import statistics
import subprocess
import sys
import time

binary = sys.argv[1]
face = sys.argv[2] if len(sys.argv) > 2 else "web"
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
hostile_count = int(sys.argv[4]) if len(sys.argv) > 4 else 200

QUESTION = {"question": "Deploy where?",
            "options": [{"label": "Staging", "recommended": True}, "Production"]}
ANSWER = b'{"answers":[{"optionIds":["2"]}]}'
URL = re.compile(rb"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})")


def memory_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))


def open_sockets(pid):
    import os
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                count += 1
        except OSError:
            pass
    return count


def hostile(port, count):
    """Opens and holds `count` connections without the token."""
    held = []
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        if i % 2:
            s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
        held.append(s)
    return held


def answer(port, token):
    """The person's answer; its round trip in seconds and its status line."""
    request = (f"POST /answer HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"Authorization: Bearer {token}\r\nOrigin: http://127.0.0.1:{port}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(ANSWER)}\r\n"
               "Connection: close\r\n\r\n").encode() + ANSWER
    start = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(10)
    s.sendall(request)
    reply = b""
    while True:
        try:
            chunk = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        reply += chunk
    elapsed = time.perf_counter() - start
    s.close()
    return elapsed, reply.split(b"\r\n", 1)[0].decode(errors="replace")


class WebFace:
    """One `ask --ui web` process per question."""

    def ask(self):
        self.process = subprocess.Popen([binary, "ask", "--ui", "web", "-"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.process.stdin.write(json.dumps(QUESTION).encode())
        self.process.stdin.close()
        port, token = URL.search(self.process.stderr.readline()).groups()
        return self.process.pid, int(port), token.decode()

    def outcome(self):
        out = self.process.stdout.read()
        self.process.wait()
        return json.loads(out)

    def close(self):
        pass


class McpFace:
    """One `mcp --fallback web` server; one tools/call per question."""

    def __init__(self):
        self.server = subprocess.Popen([binary, "mcp", "--fallback", "web"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE)
        self.next_id = 0
        self.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "0"}})
        self.server.stdout.readline()
        self.server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.server.stdin.flush()

    def send(self, method, params):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.server.stdin.write((json.dumps(message) + "\n").encode())
        self.server.stdin.flush()

    def ask(self):
        self.send("tools/call", {"name": "ask_user", "arguments": QUESTION})
        while True:
            line = self.server.stderr.readline()
            found = URL.search(line)
            if found:
                port, token = found.groups()
                return self.server.pid, int(port), token.decode()

    def outcome(self):
        while True:
            reply = json.loads(self.server.stdout.readline())
            if reply.get("id") == self.next_id:  # notifications come first
                return reply["result"]["structuredContent"]

    def close(self):
        self.server.stdin.close()
        self.server.wait()


def main():
    face_impl = McpFace() if face == "mcp" else WebFace()
    baseline, loaded, rss, peaks, sockets, threads = [], [], [], [], [], []
    for run in range(runs):
        # Baseline: the same answer with no hostile connection.
        pid, port, token = face_impl.ask()
        elapsed, status = answer(port, token)
        assert status.endswith("200 OK"), status
        assert face_impl.outcome()["answered"] is True
        baseline.append(elapsed)

        pid, port, token = face_impl.ask()
        held = hostile(port, hostile_count)
        time.sleep(0.2)  # let the server accept them all
        sockets.append(open_sockets(pid))
        threads.append(memory_kib(pid, "Threads:"))
        rss.append(memory_kib(pid, "VmRSS:"))
        elapsed, status = answer(port, token)
        peaks.append(memory_kib(pid, "VmHWM:"))
        document = face_impl.outcome()
        for s in held:
            s.close()
        if not status.endswith("200 OK") or document.get("answered") is not True:
            print(f"run {run}: the answer did not go through ({status!r}, {document})")
            sys.exit(1)
        loaded.append(elapsed)
    face_impl.close()

    ms = lambda seconds: f"{statistics.median(seconds) * 1000:.2f} ms"
    print(f"face: {face}; {runs} answers, each with {hostile_count} idle hostile "
          f"connections open (half silent, half an unfinished head)")
    print(f"  sockets / threads of the server while answering (median): "
          f"{statistics.median(sockets):.0f} / {statistics.median(threads):.0f}")
    print(f"  answer round trip, median: {ms(loaded)} (max {max(loaded) * 1000:.2f} ms)")
    print(f"  baseline (no hostile connection), median: {ms(baseline)} "
          f"-> {statistics.median(loaded) / statistics.median(baseline):.2f}x")
    print(f"  RSS with the connections open, max: {max(rss) / 1024:.1f} MiB; "
          f"peak (VmHWM), max: {max(peaks) / 1024:.1f} MiB")
    ok = statistics.median(loaded) < 0.100 and max(peaks) < 30 * 1024
    print(f"  targets (answer < 100 ms median, RSS < 30 MiB): {'met' if ok else 'NOT met'}")


main()
