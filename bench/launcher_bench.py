"""The npm launcher's cost on execute (run through bench/launcher.sh).

Usage: launcher_bench.py NATIVE LAUNCHER INPUT RUNS [NODE22_BIN_DIR]

Times `TOOLBOX_ACTION=execute < INPUT` through the native binary and through
the npm launcher (with the `node` on PATH, and with Node 22 first on PATH
when NODE22_BIN_DIR is given), and `node -e ""` alone, interleaved run by
run with the order rotated; prints medians and the launcher/native ratios.
"""

import os
import statistics
import subprocess
import sys
import time


def timed(command, env, input_path):
    with open(input_path, "rb") as stdin:
        start = time.perf_counter_ns()
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.DEVNULL, env=env)
        elapsed = time.perf_counter_ns() - start
    if done.returncode != 0:
        sys.exit(f"launcher_bench: {command} exited {done.returncode}")
    return elapsed / 1e6


def output(command, env, input_path):
    with open(input_path, "rb") as stdin:
        return subprocess.run(command, stdin=stdin, capture_output=True, env=env, check=True).stdout


def node_version(env):
    return subprocess.run(
        ["node", "-p", "process.version + (typeof process.execve === 'function' ? ' (execve)' : ' (no execve: spawn)')"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout.strip()


def main():
    native, launcher, input_path, runs = sys.argv[1:5]
    runs = int(runs)
    node22 = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
    env = dict(os.environ, TOOLBOX_ACTION="execute")
    env.pop("ASK_USER_BINARY", None)
    cases = [
        ("native binary", [native], env),
        (f"npm launcher, node {node_version(env)}", [launcher], env),
        (f"node -e '' alone, node {node_version(env)}", ["node", "-e", ""], env),
    ]
    if node22:
        env22 = dict(env, PATH=node22 + os.pathsep + env["PATH"])
        cases.append((f"npm launcher, node {node_version(env22)}", [launcher], env22))
        cases.append((f"node -e '' alone, node {node_version(env22)}", ["node", "-e", ""], env22))
    # The launcher prints what the binary prints.
    expected = output([native], env, input_path)
    for name, command, case_env in cases[1:]:
        if command[0] == launcher and output(command, case_env, input_path) != expected:
            sys.exit(f"launcher_bench: {name} printed something else than the native binary")
    for _ in range(10):  # warm the page cache
        for _, command, case_env in cases:
            timed(command, case_env, input_path)
    samples = {name: [] for name, _, _ in cases}
    for i in range(runs):
        for slot in range(len(cases)):
            name, command, case_env = cases[(i + slot) % len(cases)]
            samples[name].append(timed(command, case_env, input_path))
    base = statistics.median(samples["native binary"])
    print(f"execute on {os.path.basename(input_path)}, {runs} interleaved runs each (wall time of one run; + is over native):")
    for name, _, _ in cases:
        median = statistics.median(samples[name])
        p90 = sorted(samples[name])[int(len(samples[name]) * 0.9)]
        print(
            f"  {name:<52} median {median:8.3f} ms (+{median - base:7.3f})  "
            f"p90 {p90:8.3f} ms  ratio {median / base:6.2f}x native"
        )
    print("Node's own start-up is most of the launcher's cost: compare each launcher line with its `node -e ''` line.")


if __name__ == "__main__":
    main()
