"""The inbox under 200 concurrent askers (run by bench/inbox.sh).

Starts `ask_user inbox` on a free port with a fresh state folder, then 200
`ask --ui inbox` askers at once, each holding its wait connection. With all
200 pending it measures:
- the inbox's resident memory (VmRSS, and the peak VmHWM);
- `ask_user inbox list` (200 JSON lines), wall time per run;
- answer to stdout: from starting `ask_user inbox answer ID --reply 1` in
  another process to the asker's answer document arriving on its stdout;
- in the same run, the baseline: starting `ask_user --version` to its exit
  (what any one-shot process of this binary costs on this machine).
Prints medians (and p90) and the answer's ratio to the baseline.

Usage: python3 bench/inbox_bench.py BINARY [ASKERS] [ANSWERS]
"""

import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1]
askers_count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
answers_count = int(sys.argv[3]) if len(sys.argv) > 3 else 100


def memory_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    raise RuntimeError(f"no {field}")


def median_ms(samples):
    return statistics.median(samples) * 1000


def p90_ms(samples):
    return sorted(samples)[int(len(samples) * 0.9) - 1] * 1000


def main():
    # On the disk the store normally lives on (not a tmpfs): fsync counts.
    state = tempfile.mkdtemp(prefix="ask-user-inbox-bench-", dir=os.path.expanduser("~"))
    env = dict(os.environ, ASK_USER_STATE_DIR=state)
    for name in ("ASK_USER_INBOX", "ASK_USER_TOKEN", "TOOLBOX_ACTION", "ASK_USER_UI"):
        env.pop(name, None)
    inbox = subprocess.Popen(
        [binary, "inbox", "--port", "0"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,
    )
    askers = []
    try:
        line = inbox.stderr.readline().decode()
        if "http://" not in line:
            raise RuntimeError(f"the inbox did not start: {line}")
        baseline_rss = memory_kib(inbox.pid, "VmRSS:")

        started = time.perf_counter()
        for n in range(askers_count):
            question = json.dumps({"question": f"Question {n}?", "options": ["Yes", "No"]})
            asker = subprocess.Popen(
                [binary, "ask", "--ui", "inbox", "-"],
                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,
            )
            asker.stdin.write(question.encode())
            asker.stdin.close()
            askers.append(asker)
        # Each asker says its question's id on stderr once the inbox has it.
        ids = []
        for asker in askers:
            said = asker.stderr.readline().decode()
            if "question " not in said:
                out = asker.stdout.read().decode()
                raise RuntimeError(f"an asker failed: {said.strip()} {out.strip()}")
            ids.append(said.split("question ")[1].split(";")[0])
        asked_s = time.perf_counter() - started

        def listing():
            t0 = time.perf_counter()
            out = subprocess.run([binary, "inbox", "list"], env=env, capture_output=True, check=True)
            return time.perf_counter() - t0, out.stdout

        _, out = listing()
        pending = len(out.splitlines())
        if pending != askers_count:
            raise RuntimeError(f"{pending} pending, not {askers_count}")
        rss = memory_kib(inbox.pid, "VmRSS:")
        list_times = [listing()[0] for _ in range(21)]

        answer_times = []
        baseline_times = []
        selector = selectors.DefaultSelector()
        for n in range(min(answers_count, askers_count)):
            # The baseline, interleaved: one process of this binary, start to exit.
            t0 = time.perf_counter()
            subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True)
            baseline_times.append(time.perf_counter() - t0)

            asker = askers[n]
            selector.register(asker.stdout, selectors.EVENT_READ)
            t0 = time.perf_counter()
            answering = subprocess.Popen(
                [binary, "inbox", "answer", ids[n], "--reply", "1"],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            if not selector.select(timeout=30):
                raise RuntimeError(f"no answer reached asker {n}")
            document = asker.stdout.readline()
            answer_times.append(time.perf_counter() - t0)
            selector.unregister(asker.stdout)
            answering.wait()
            if json.loads(document)["answers"][0]["values"] != ["Yes"]:
                raise RuntimeError(f"asker {n} got {document!r}")
        peak = memory_kib(inbox.pid, "VmHWM:")

        answer = median_ms(answer_times)
        baseline = median_ms(baseline_times)
        print(f"askers pending: {askers_count} (all asked in {asked_s:.2f} s)")
        print(f"inbox RSS: {baseline_rss / 1024:.1f} MiB idle, {rss / 1024:.1f} MiB with "
              f"{askers_count} pending, peak {peak / 1024:.1f} MiB (target <= 30 MiB)")
        print(f"inbox list ({askers_count} lines, {len(out)} bytes): median "
              f"{median_ms(list_times):.1f} ms, p90 {p90_ms(list_times):.1f} ms (21 runs)")
        print(f"answer (inbox answer) to the asker's stdout: median {answer:.1f} ms, "
              f"p90 {p90_ms(answer_times):.1f} ms ({len(answer_times)} answers; target <= 20 ms)")
        print(f"baseline, ask_user --version start to exit: median {baseline:.1f} ms; "
              f"answer / baseline = {answer / baseline:.1f}x")
        ok = answer <= 20 and peak <= 30 * 1024
        print("targets: " + ("met" if ok else "NOT met"))
        return 0 if ok else 1
    finally:
        for asker in askers:
            if asker.poll() is None:
                asker.send_signal(signal.SIGTERM)
        for asker in askers:
            try:
                asker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                asker.kill()
        inbox.send_signal(signal.SIGTERM)
        try:
            inbox.wait(timeout=20)
        except subprocess.TimeoutExpired:
            inbox.kill()
        subprocess.run(["rm", "-rf", state], check=False)


sys.exit(main())
