"""The team inbox: two replicas on one PostgreSQL, against one replica on
SQLite as the baseline, measured in the same run (run by bench/team_inbox.sh).

For each setup:
- 200 `ask --ui inbox` askers wait on replica A (ASK_USER_INBOX names A);
- answer to stdout: an answer posted to replica B's API (the route `inbox
  answer` uses) until the asker's answer document arrives on its stdout, for
  100 of them; on SQLite there is one replica, so A is B;
- asks stored per second: 2,000 asks posted by CLIENTS clients at once (half
  to each replica on PostgreSQL), each acknowledged (201) only once its
  question is committed, and the questions counted in the store
  afterwards; an ask here is "acknowledged", not answered. Each ask's
  latency (the POST until its 201) gives the median and p99. On PostgreSQL
  this runs with the replicas' default pool (--store-connections 4) and
  again with one connection each (as before the pool), on a new database.
PostgreSQL's own insert rate, on the same server and disk in the same run:
`pgbench` with CLIENTS clients for 10 s, each transaction what an ask's
is (a lookup by key, a question row of the same shape, its "asked" event,
a NOTIFY), into scratch tables of the questions' and events' shape.
PostgreSQL 15 runs in a temporary folder on the disk (fsync and
synchronous_commit on, as shipped), as the `postgres` user when run as root.
PostgreSQL runs with pg_stat_statements (for pgbench too): the statements
the two replicas ran during the asks, counted per ask, say where their round
trips go.
Prints medians and p99, the ratios to the baseline and to PostgreSQL's
rate, the statements per ask, the machine (nproc, load before and after),
and the targets. The asks' target is a ratio, not a figure: what one disk
commits a second is the disk's, so two replicas are held to 0.8x PostgreSQL's
own rate for the same transaction on the same server in the same run.
Exits 1 when a target is missed.

Usage: python3 bench/team_inbox_bench.py BINARY [ASKERS] [ANSWERS] [ASKS] [CLIENTS]
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
clients_count = int(sys.argv[5]) if len(sys.argv) > 5 else 16
PGBENCH_SECONDS = 10
# The targets: two replicas' asks/s at least this share of pgbench's rate
# for an ask's transaction in the same run, each ask's median and p99 (ms),
# and an answer's median and p99 (ms).
RATIO_TARGET = 0.8
ASK_MEDIAN_TARGET = 10
ASK_P99_TARGET = 50
ANSWER_MEDIAN_TARGET = 25
ANSWER_P99_TARGET = 100
# One ask's transaction, as crates/inbox/src/store/postgres/mod.rs runs it.
PGBENCH_SCRIPT = """\\set n random(1, 1000000000)
BEGIN;
SELECT id FROM bench_questions WHERE ask_key = 'k' || :client_id || '-' || :n;
INSERT INTO bench_questions (id, ask_key, input, prompt, asked_at, expires_at)
  VALUES (md5(random()::text), md5(random()::text),
          '{"question":"Deploy?","options":["Yes","No"]}',
          '{"tool":"ask_user","version":1,"questions":[{"id":"q1","prompt":"Deploy?"}]}',
          1, 2) ON CONFLICT DO NOTHING;
INSERT INTO bench_events (question, at, kind) VALUES ('q', 1, 'asked');
NOTIFY bench;
END;
"""
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
                          "-c", "listen_addresses=", "-c", "max_connections=100",
                          "-c", "shared_preload_libraries=pg_stat_statements"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            if os.path.exists(f"{self.dir}/.s.PGSQL.5432"):
                break
            time.sleep(0.05)
        time.sleep(0.3)
        self.run(["psql", "-h", self.dir, "-U", "ask_user", "-d", "postgres", "-qc",
                  "CREATE DATABASE inbox"], binary="/usr/bin")
        self.sql("CREATE EXTENSION pg_stat_statements")

    def as_user(self, argv):
        return (["runuser", "-u", self.user, "--"] + argv) if self.user else argv

    def run(self, argv, binary=None):
        program = os.path.join(binary or self.bin, argv[0])
        subprocess.run(self.as_user([program] + argv[1:]), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sql(self, query, database="inbox"):
        out = subprocess.run(["psql", "-h", self.dir, "-U", "ask_user", "-d", database, "-tAc",
                              query], check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def count(self, database="inbox"):
        return int(self.sql("SELECT count(*) FROM questions", database))

    def statements_reset(self):
        self.sql("SELECT pg_stat_statements_reset()")

    def statements(self, database="inbox"):
        """Each statement run on DATABASE since the last reset: (calls,
        its text's start), most called first."""
        out = self.sql(
            "SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) "
            "FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database "
            f"WHERE datname = '{database}') AND query NOT LIKE '%pg_stat_statements%' "
            "AND query NOT LIKE 'SELECT count(*) FROM questions%' ORDER BY calls DESC")
        return [(int(line.split("|", 1)[0]), line.split("|", 1)[1])
                for line in out.splitlines() if line]

    def url(self, database="inbox"):
        return "postgres://ask_user@" + self.dir.replace("/", "%2F") + "/" + database

    def insert_rate(self, clients):
        """pgbench: CLIENTS clients running an ask's transaction for 10 s."""
        self.sql("CREATE TABLE bench_questions (LIKE questions INCLUDING ALL);"
                 "CREATE TABLE bench_events (LIKE events INCLUDING DEFAULTS)")
        script = os.path.join(self.dir, "ask.sql")
        with open(script, "w") as f:
            f.write(PGBENCH_SCRIPT)
        os.chmod(script, 0o644)
        out = subprocess.run(self.as_user([
            f"{self.bin}/pgbench", "-h", self.dir, "-U", "ask_user", "-n", "-f", script,
            "-c", str(clients), "-j", "2", "-T", str(PGBENCH_SECONDS), "inbox"]),
            check=True, capture_output=True, text=True)
        tps = [line for line in out.stdout.splitlines() if line.startswith("tps = ")]
        latency = [line for line in out.stdout.splitlines() if line.startswith("latency average")]
        rows = int(self.sql("SELECT count(*) FROM bench_questions"))
        self.sql("DROP TABLE bench_questions; DROP TABLE bench_events")
        return {"tps": float(tps[0].split()[2]), "rows": rows,
                "latency_ms": float(latency[0].split()[3]) if latency else None}

    def stop(self):
        self.run(["pg_ctl", "stop", "-m", "fast", "-D", f"{self.dir}/data"])
        self.server.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


class Replica:
    def __init__(self, env, store, token_from=None, extra=()):
        self.state = tempfile.mkdtemp(prefix="ask_user-bench-state.", dir="/var/tmp")
        if token_from:
            shutil.copy(os.path.join(token_from.state, "token"), os.path.join(self.state, "token"))
        self.env = dict(env, ASK_USER_STATE_DIR=self.state)
        args = [binary, "inbox", "--port", "0"] + (["--store", store] if store else []) + list(extra)
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


def measure(name, a, b, count_stored, before_asks=lambda: None):
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

    before_asks()
    rate = ask_rate(a, b, count_stored)
    return dict(rate, name=name, median=statistics.median(answers) * 1000,
                p99=p99(answers) * 1000, answers=len(answers))


def ask_rate(a, b, count_stored):
    """ASKS asks posted by CLIENTS clients at once, half to A and half to B;
    each counts once acknowledged (committed). asks/s, and each ask's
    latency."""
    before = count_stored()
    errors = []
    latencies = []
    lock = threading.Lock()

    def client(replica, n, share):
        connection = replica.connection()
        mine = []
        try:
            for k in range(share):
                t0 = time.perf_counter()
                replica.post(connection, "/api/ask",
                             {"key": f"bench-{n}-{k}-{time.time_ns()}", "input": QUESTION,
                              "expiresAt": int(time.time() * 1000) + 3_600_000})
                mine.append(time.perf_counter() - t0)
        except Exception as e:  # reported below
            errors.append(e)
        with lock:
            latencies.extend(mine)

    share = asks_count // clients_count
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=([a, b][n % 2], n, share))
               for n in range(clients_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise RuntimeError(f"asks failed: {errors[0]}")
    stored = count_stored() - before
    if stored != share * clients_count:
        raise RuntimeError(f"{stored} stored, not {share * clients_count}")
    return {
        "asks_per_s": stored / elapsed,
        "asks": stored,
        "ask_median": statistics.median(latencies) * 1000,
        "ask_p99": p99(latencies) * 1000,
    }


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    env = {k: v for k, v in os.environ.items()
           if k not in ("ASK_USER_INBOX", "ASK_USER_TOKEN", "TOOLBOX_ACTION", "ASK_USER_UI",
                        "ASK_USER_STORE")}
    load_before = load()
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
                                   postgres.count, postgres.statements_reset))
        finally:
            a.stop()
            b.stop()
        # Counted once both replicas stopped: each has heard every notice.
        statements = postgres.statements()
        # The same asks with one connection a replica (as before the pool).
        postgres.sql("CREATE DATABASE single", "postgres")
        a = Replica(env, postgres.url("single"), extra=["--store-connections", "1"])
        b = Replica(env, postgres.url("single"), token_from=a, extra=["--store-connections", "1"])
        try:
            one = ask_rate(a, b, lambda: postgres.count("single"))
        finally:
            a.stop()
            b.stop()
        raw = postgres.insert_rate(clients_count)
    finally:
        postgres.stop()
    load_after = load()
    base = results[0]
    for r in results:
        print(f"{r['name']}: answer on B to stdout on A: median {r['median']:.1f} ms, "
              f"p99 {r['p99']:.1f} ms ({r['answers']} answers, {askers_count} askers waiting); "
              f"{r['asks_per_s']:.0f} asks/s acknowledged ({r['asks']} asks, {clients_count} "
              f"clients; each ask median {r['ask_median']:.1f} ms, p99 {r['ask_p99']:.1f} ms)")
    team = results[1]
    print(f"PostgreSQL, two replicas with one store connection each: {one['asks_per_s']:.0f} "
          f"asks/s (median {one['ask_median']:.1f} ms, p99 {one['ask_p99']:.1f} ms)")
    print(f"PostgreSQL alone (pgbench, {clients_count} clients, {PGBENCH_SECONDS} s, an ask's "
          f"transaction): {raw['tps']:.0f} inserts/s ({raw['rows']} rows, average latency "
          f"{raw['latency_ms']} ms)")
    ratio = team["asks_per_s"] / raw["tps"]
    print(f"ratios: two replicas / PostgreSQL alone {ratio:.2f}x; "
          f"pool of 4 / one connection {team['asks_per_s'] / one['asks_per_s']:.2f}x; "
          f"to the SQLite baseline: answer median {team['median'] / base['median']:.2f}x, "
          f"asks/s {team['asks_per_s'] / base['asks_per_s']:.2f}x")
    asks = team["asks"]
    total = sum(calls for calls, _ in statements)
    print(f"statements per ask, both replicas (pg_stat_statements, {asks} asks): "
          f"{total / asks:.2f}")
    for calls, text in statements[:6]:
        print(f"  {calls / asks:5.2f}  {text}")
    print(f"machine: nproc {os.cpu_count()}, load average {load_before} before, "
          f"{load_after} after")
    ok = team["median"] <= ANSWER_MEDIAN_TARGET and team["p99"] <= ANSWER_P99_TARGET
    print(f"answer targets (median <= {ANSWER_MEDIAN_TARGET} ms, p99 <= {ANSWER_P99_TARGET} "
          "ms): " + ("met" if ok else "NOT met"))
    asks_ok = (ratio >= RATIO_TARGET and team["ask_median"] <= ASK_MEDIAN_TARGET
               and team["ask_p99"] <= ASK_P99_TARGET)
    print(f"ask targets (two replicas >= {RATIO_TARGET}x PostgreSQL alone, median <= "
          f"{ASK_MEDIAN_TARGET} ms, p99 <= {ASK_P99_TARGET} ms): "
          + ("met" if asks_ok else "NOT met"))
    return 0 if ok and asks_ok else 1


if __name__ == "__main__":
    sys.exit(main())
