"""How fast the inbox turns a request away, against the time it takes to
serve one with a valid token (run by bench/refusals.sh). Issue 24: "a wrong
token gets 401, and no request without a valid token is slower to turn away
than with one."

One `ask_user inbox --tokens FILE` (SQLite, a temporary state folder; the
file names a person and an asker). Five kinds of `GET /api/questions`:
  a. the inbox's own token                         200
  b. an asker's token                              403 FORBIDDEN
  c. a wrong token, the own one with its last char changed    401
  d. a wrong token, the own one with its first char changed   401
  e. no token                                      401
Each round sends the five in a shuffled order, back to back, and times each
from its first byte sent to the last byte of its response. The inbox closes
the connection after a refusal (`connection: close`), so every kind is sent on
a new connection (opened before the clock starts), like for like; (a) and (b)
are also sent on one keep-alive connection each, for reference.

Requests without a valid token (c, d, e) share the inbox's tokenless limit
(crates/server/src/lib.rs `Limits::default()`: 100 in any 60 s, then 429): in the
first burst of ROUNDS rounds the first 100 of them get 401 and the rest 429,
a refusal too, reported apart. Then, WINDOWS times, the bench waits for the
limit's window to pass and sends rounds until the first 429, for more 401s.
Each refusal's median is compared with (a)'s median over the same rounds.

Prints, per kind and status, the count, median and p99 in microseconds and
the ratio to (a); exits 1 when a status is not the expected one, or when the
median of a 401 or a 429 is more than 1.2x (a)'s.

Usage: python3 bench/refusals_bench.py BINARY [ROUNDS] [WINDOWS]
"""

import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

binary = sys.argv[1]
rounds_count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
windows_count = int(sys.argv[3]) if len(sys.argv) > 3 else 2
# The tokenless limit's window (crates/server/src/lib.rs, Limits::default).
RATE_WINDOW_S = 60
LIMIT = 1.2

KINDS = {
    "a": "own token",
    "b": "asker token",
    "c": "wrong token, last char",
    "d": "wrong token, first char",
    "e": "no token",
}
EXPECTED = {"a": {200}, "b": {403}, "c": {401, 429}, "d": {401, 429}, "e": {401, 429}}


class Inbox:
    """`ask_user inbox --port 0 --tokens FILE` in a temporary state folder."""

    def __init__(self):
        self.state = tempfile.mkdtemp(prefix="ask_user-bench-state.", dir="/var/tmp")
        self.asker_token = secrets.token_hex(16)
        tokens = os.path.join(self.state, "tokens")
        with open(os.open(tokens, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(f"person Ada {secrets.token_hex(16)}\nasker ci {self.asker_token}\n")
        env = dict(os.environ, ASK_USER_STATE_DIR=self.state)
        for name in ("ASK_USER_INBOX", "ASK_USER_TOKEN", "ASK_USER_STORE", "TOOLBOX_ACTION"):
            env.pop(name, None)
        self.process = subprocess.Popen(
            [binary, "inbox", "--port", "0", "--tokens", tokens], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        line = self.process.stderr.readline().decode()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        if not found:
            raise RuntimeError(f"the inbox did not start: {line}")
        self.port = int(found.group(1))
        self.token = found.group(2)
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.state, ignore_errors=True)


def other_char(c):
    return "0" if c != "0" else "1"


def request(port, token):
    head = f"GET /api/questions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    return (head + "\r\n").encode()


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def exchange(s, data):
    """Sends `data`, reads one whole response: (status, body, closes, ns)."""
    t0 = time.perf_counter_ns()
    s.sendall(data)
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError(f"the connection closed before a response: {buffer!r}")
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError("the connection closed inside a body")
        body += chunk
    elapsed = time.perf_counter_ns() - t0
    status = int(head.split(b" ", 2)[1])
    closes = re.search(rb"(?i)\r\nconnection: *close", head) is not None
    return status, body, closes, elapsed


def p99(samples):
    ordered = sorted(samples)
    return ordered[max(0, int(round(len(ordered) * 0.99)) - 1)]


def main():
    inbox = Inbox()
    token = inbox.token
    wrong_last = token[:-1] + other_char(token[-1])
    wrong_first = other_char(token[0]) + token[1:]
    assert len(wrong_last) == len(wrong_first) == len(token)
    requests = {
        "a": request(inbox.port, token),
        "b": request(inbox.port, inbox.asker_token),
        "c": request(inbox.port, wrong_last),
        "d": request(inbox.port, wrong_first),
        "e": request(inbox.port, None),
    }
    # samples[(kind, status)] = [(round, µs)]; kept[kind] on keep-alive.
    samples = {}
    kept = {"a": [], "b": []}
    wrong = []
    keep = {kind: connect(inbox.port) for kind in kept}
    round_number = 0

    def play_round():
        nonlocal round_number
        round_number += 1
        statuses = {}
        order = list(requests)
        random.shuffle(order)
        for kind in order:
            s = connect(inbox.port)
            try:
                status, body, _, ns = exchange(s, requests[kind])
            finally:
                s.close()
            statuses[kind] = status
            samples.setdefault((kind, status), []).append((round_number, ns / 1000))
            if status not in EXPECTED[kind]:
                wrong.append(f"{KINDS[kind]}: {status} {body[:120]!r}")
            elif status == 403 and json.loads(body)["error"]["code"] != "FORBIDDEN":
                wrong.append(f"{KINDS[kind]}: 403 {body[:120]!r}")
        for kind in random.sample(list(kept), len(kept)):
            status, body, closes, ns = exchange(keep[kind], requests[kind])
            if status not in EXPECTED[kind] or closes:
                wrong.append(f"{KINDS[kind]} (keep-alive): {status} {body[:120]!r}")
            kept[kind].append(ns / 1000)
        return statuses

    try:
        started = time.monotonic()
        for _ in range(rounds_count):
            play_round()
        burst_rounds = round_number
        for window in range(windows_count):
            time.sleep(max(0.0, started + RATE_WINDOW_S + 1 - time.monotonic()))
            # The inbox closed the idle keep-alive connections meanwhile.
            for kind in kept:
                keep[kind].close()
                keep[kind] = connect(inbox.port)
            started = time.monotonic()
            got = 0
            while True:
                statuses = play_round()
                if 429 in statuses.values():
                    break
                got += 1
            if got == 0:
                wrong.append(f"window {window + 1}: no 401 after {RATE_WINDOW_S} s "
                             "(is the tokenless window longer?)")
    finally:
        for s in keep.values():
            s.close()
        inbox.stop()

    a_by_round = dict(samples.get(("a", 200), []))
    print(f"ask_user inbox --tokens: GET /api/questions, {rounds_count} rounds in a burst, then "
          f"{windows_count} more tokenless window(s) of {RATE_WINDOW_S} s "
          f"({round_number} rounds in all); each kind on a new connection; microseconds")
    print(f"{'request':<27} {'status':>6} {'n':>6} {'median':>9} {'p99':>9} "
          f"{'ratio to (a)':>13}")
    failed = list(wrong)
    for kind in requests:
        for status in sorted(s for k, s in samples if k == kind):
            taken = samples[(kind, status)]
            values = [us for _, us in taken]
            median = statistics.median(values)
            ratio = ""
            if kind != "a":
                base = statistics.median(a_by_round[r] for r, _ in taken if r in a_by_round)
                ratio = median / base
                if status in (401, 429) and ratio > LIMIT:
                    failed.append(f"{KINDS[kind]} {status}: median {median:.1f} µs is "
                                  f"{ratio:.2f}x (a)'s {base:.1f} µs over the same rounds "
                                  f"(limit {LIMIT}x)")
                ratio = f"{ratio:.2f}x"
            print(f"({kind}) {KINDS[kind]:<23} {status:>6} {len(values):>6} "
                  f"{median:>9.1f} {p99(values):>9.1f} {ratio:>13}")
    for kind, values in kept.items():
        print(f"({kind}) {KINDS[kind] + ', keep-alive':<23} {next(iter(EXPECTED[kind])):>6} "
              f"{len(values):>6} {statistics.median(values):>9.1f} {p99(values):>9.1f}")
    rounds_401 = {r for (k, s), v in samples.items() if s == 401 for r, _ in v}
    if rounds_401:
        base = statistics.median(a_by_round[r] for r in rounds_401 if r in a_by_round)
        print(f"(a)'s median over the {len(rounds_401)} rounds with 401s (the first of each "
              f"window): {base:.1f} µs")
    tokenless = sum(len(v) for (k, s), v in samples.items() if s == 401)
    print(f"401s: {tokenless} (the first 100 tokenless requests of each {RATE_WINDOW_S} s window; "
          f"the rest get 429); burst rounds: {burst_rounds}")
    if failed:
        print("FAILED:")
        for line in failed[:20]:
            print(f"  {line}")
        if len(failed) > 20:
            print(f"  … and {len(failed) - 20} more")
        sys.exit(1)
    print(f"every 401 and 429 median within {LIMIT}x of (a)'s: met")


main()
