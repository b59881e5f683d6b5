"""The team inbox: two replicas on one PostgreSQL, against one replica on
SQLite as the baseline, measured in the same run (run by bench/team_inbox.sh).

For each setup:
- 200 `ask --ui inbox` askers wait on replica A (ASK_USER_INBOX names A);
- answer to stdout: an answer posted to replica B's API (the route `inbox
  answer` uses) until the asker's answer document arrives on its stdout, for
  100 of them; on SQLite there is one replica, so A is B;
- asks stored per second: 2,000 asks posted by 8 clients at once (4 to each
  replica on PostgreSQL), each acknowledged only once committed, and the
  questions counted in the store afterwards.
PostgreSQL 15 runs in a temporary folder on the disk (fsync and
synchronous_commit on, as shipped), as the `postgres` user when run as root.
Prints medians and p99, the ratios to the baseline, and the targets
(median <= 25 ms, p99 <= 100 ms, >= 300 asks/s).

Usage: python3 bench/team_inbox_bench.py BINARY [ASKERS] [ANSWERS] [ASKS]
"""

import glob
import http.client
import json
import os
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

binary = sys.argv[1]
askers_count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
answers_count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
asks_count = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
QUESTION = {"question": "Deploy?", "options": ["Yes", "No"]}


def pg_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4].split(".")[0]))
    if not found:
        sys.exit("PostgreSQL is not installed: run .ci/setup-postgres.sh")
    return os.path.dirname(found[-1])


class Postgres:
    """A PostgreSQL server in a temporary folder, on a Unix socket."""

    def __init__(self):
        self.bin = pg_bin()
        self.dir = tempfile.mkdtemp(prefix="ask_user-pg-bench.", dir="/var/tmp")
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(self.dir, self.user)
        self.run(["initdb", "-A", "trust", "-U", "ask_user", "-E", "UTF8", "-D", f"{self.dir}/data"])
        self.server = subprocess.Popen(
            self.as_user([f"{self.bin}/postgres", "-D", f"{self.dir}/data", "-k", self.dir,
                          "-c", "listen_addresses=", "-c", "max_connections=100"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            if os.path.exists(f"{self.dir}/.s.PGSQL.5432"):
                break
            time.sleep(0.05)
        time.sleep(0.3)
        self.run(["psql", "-h", self.dir, "-U", "ask_user", "-d", "postgres", "-qc",
                  "CREATE DATABASE inbox"], binary="/usr/bin")

    def as_user(self, argv):
        return (["runuser", "-u", self.user, "--"] + argv) if self.user else argv

    def run(self, argv, binary=None):
        program = os.path.join(binary or self.bin, argv[0])
        subprocess.run(self.as_user([program] + argv[1:]), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def url(self):
        return "postgres://ask_user@" + self.dir.replace("/", "%2F") + "/inbox"

    def count(self):
        out = subprocess.run(["psql", "-h", self.dir, "-U", "ask_user", "-d", "inbox", "-tAc",
                              "SELECT count(*) FROM questions"],
                             check=True, capture_output=True, text=True)
        return int(out.stdout.strip())

    def stop(self):
        self.run(["pg_ctl", "stop", "-m", "fast", "-D", f"{self.dir}/data"])
        self.server.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


class Replica:
    def __init__(self, env, store, token_from=None):
        self.state = tempfile.mkdtemp(prefix="ask_user-bench-state.", dir="/var/tmp")
        if token_from:
            shutil.copy(os.path.join(token_from.state, "token"), os.path.join(self.state, "token"))
        self.env = dict(env, ASK_USER_STATE_DIR=self.state)
        args = [binary, "inbox", "--port", "0"] + (["--store", store] if store else [])
        self.process = subprocess.Popen(args, env=self.env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=True)
        line = self.process.stderr.readline().decode()
        if "http://127.0.0.1:" not in line:
            raise RuntimeError(f"the inbox did not start: {line}")
        url = line.split("http://127.0.0.1:")[1].split()[0]
        self.port = int(url.split("/")[0])
        self.token = url.split("token=")[1]
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def post(self, connection, path, body):
        data = json.dumps(body).encode()
        connection.request("POST", path, body=data, headers={
            "Host": f"127.0.0.1:{self.port}", "Origin": f"http://127.0.0.1:{self.port}",
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        reply = connection.getresponse()
        text = reply.read()
        if reply.status not in (200, 201):
            raise RuntimeError(f"POST {path}: {reply.status} {text[:200]!r}")
        return json.loads(text)

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.state, ignore_errors=True)


def p99(samples):
    ordered = sorted(samples)
    return ordered[max(0, int(round(len(ordered) * 0.99)) - 1)]


def measure(name, a, b, count_stored):
    """200 askers on A, answered through B; then asks per second on both."""
    env = dict(a.env, ASK_USER_INBOX=f"http://127.0.0.1:{a.port}", ASK_USER_TOKEN=a.token)
    askers = []
    try:
        for n in range(askers_count):
            asker = subprocess.Popen([binary, "ask", "--ui", "inbox", "-"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
            asker.stdin.write(json.dumps(dict(QUESTION, question=f"Deploy {n}?")).encode())
            asker.stdin.close()
            askers.append(asker)
        ids = []
        for asker in askers:
            said = asker.stderr.readline().decode()
            if "question " not in said:
                raise RuntimeError(f"an asker failed: {said.strip()}")
            ids.append(said.split("question ")[1].split(";")[0])
        time.sleep(1)  # every replica has heard of every question
        answers = []
        selector = selectors.DefaultSelector()
        connection = b.connection()
        for n in range(min(answers_count, askers_count)):
            asker = askers[n]
            selector.register(asker.stdout, selectors.EVENT_READ)
            t0 = time.perf_counter()
            b.post(connection, f"/api/questions/{ids[n]}/reply", {"replies": ["1"]})
            if not selector.select(timeout=30):
                raise RuntimeError(f"no answer reached asker {n}")
            document = asker.stdout.readline()
            answers.append(time.perf_counter() - t0)
            selector.unregister(asker.stdout)
            if json.loads(document)["answers"][0]["values"] != ["Yes"]:
                raise RuntimeError(f"asker {n} got {document!r}")
    finally:
        for asker in askers:
            if asker.poll() is None:
                asker.send_signal(signal.SIGTERM)
        for asker in askers:
            try:
                asker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                asker.kill()

    before = count_stored()
    errors = []

    def client(replica, n, share):
        connection = replica.connection()
        try:
            for k in range(share):
                replica.post(connection, "/api/ask",
                             {"key": f"bench-{n}-{k}", "input": QUESTION,
                              "expiresAt": int(time.time() * 1000) + 3_600_000})
        except Exception as e:  # reported below
            errors.append(e)

    clients = 8
    share = asks_count // clients
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=([a, b][n % 2], n, share)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise RuntimeError(f"asks failed: {errors[0]}")
    stored = count_stored() - before
    if stored != share * clients:
        raise RuntimeError(f"{stored} stored, not {share * clients}")
    return {
        "name": name,
        "median": statistics.median(answers) * 1000,
        "p99": p99(answers) * 1000,
        "answers": len(answers),
        "asks_per_s": stored / elapsed,
        "asks": stored,
    }


def main():
    env = {k: v for k, v in os.environ.items()
           if k not in ("ASK_USER_INBOX", "ASK_USER_TOKEN", "TOOLBOX_ACTION", "ASK_USER_UI",
                        "ASK_USER_STORE")}
    results = []
    # The baseline: one replica on SQLite (the embedded default).
    single = Replica(env, None)
    try:
        def sqlite_count():
            out = subprocess.run([binary, "inbox", "list"], env=single.env, capture_output=True,
                                 check=True)
            history = subprocess.run([binary, "inbox", "history"], env=single.env,
                                     capture_output=True, check=True)
            return len(out.stdout.splitlines()) + len(history.stdout.splitlines())
        results.append(measure("SQLite, one replica (baseline)", single, single, sqlite_count))
    finally:
        single.stop()
    postgres = Postgres()
    try:
        a = Replica(env, postgres.url())
        b = Replica(env, postgres.url(), token_from=a)
        try:
            results.append(measure("PostgreSQL, two replicas (A asks, B answers)", a, b,
                                   postgres.count))
        finally:
            a.stop()
            b.stop()
    finally:
        postgres.stop()
    base = results[0]
    for r in results:
        print(f"{r['name']}: answer on B to stdout on A: median {r['median']:.1f} ms, "
              f"p99 {r['p99']:.1f} ms ({r['answers']} answers, {askers_count} askers waiting); "
              f"{r['asks_per_s']:.0f} asks/s stored ({r['asks']} asks, 8 clients)")
    team = results[1]
    print(f"ratios to the baseline: answer median {team['median'] / base['median']:.2f}x, "
          f"asks/s {team['asks_per_s'] / base['asks_per_s']:.2f}x")
    ok = team["median"] <= 25 and team["p99"] <= 100 and team["asks_per_s"] >= 300
    print("targets (median <= 25 ms, p99 <= 100 ms, >= 300 asks/s): " + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
