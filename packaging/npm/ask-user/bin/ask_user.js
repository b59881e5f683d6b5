#!/usr/bin/env node
// The `ask_user` (and `ask-user`) command of the npm package ask-user: it runs
// the native ask_user binary from the platform package npm installed beside
// it (@ask-user/<os>-<cpu>, an optional dependency chosen by `os` and `cpu`),
// so that nothing is downloaded or built at install time.
//
// ASK_USER_BINARY=/path/to/ask_user runs that binary instead (a local build,
// or a platform this package has no binary for).
//
// On Node >= 22.15 (process.execve) Node is replaced by the binary: stdio,
// signals and the exit status are the binary's own. Before that the binary
// runs as a child: stdio inherited (the same descriptors, so a terminal stays
// a terminal and nothing is buffered), SIGINT, SIGTERM and SIGHUP passed on,
// and the child's exit code (or the signal it died of) becomes this
// process's. Only SIGKILL of this launcher leaves the child running, as any
// parent killed that way does; an MCP server then ends when its host closes
// its stdin.
//
// This file touches no stdio stream on the way to the binary: Node puts a
// pipe it opens into non-blocking mode, and the binary would inherit that.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

// The platforms with a package, as Node names them (process.platform-arch).
const PLATFORMS = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-x64"];
const OTHER_WAYS =
  "install from https://github.com/ask-user/ask_user/releases, " +
  "with `cargo install ask_user`, or `pipx install ask-user`";

// One line on stderr, then exit 1.
function fail(line) {
  process.stderr.write(`ask_user: ${line}\n`);
  process.exit(1);
}

function ownVersion() {
  try {
    return require("../package.json").version;
  } catch {
    return "VERSION";
  }
}

// The native binary's path, or a clear line and exit 1.
function binaryPath() {
  const override = process.env.ASK_USER_BINARY;
  if (override) {
    return { file: override, from: "ASK_USER_BINARY" };
  }
  const platform = `${process.platform}-${process.arch}`;
  const name = `@ask-user/${platform}`;
  if (!PLATFORMS.includes(platform)) {
    fail(`no prebuilt binary for ${platform} in npm package ${name}; ${OTHER_WAYS}`);
  }
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    // npm skips an optional dependency it cannot install (the registry or
    // its cache lacks it, npx offline) as quietly as one it was told to
    // omit: say what is missing and how to get it, the cause only as a guess.
    const version = ownVersion();
    const pinned = `${name}@${version}`;
    fail(
      `the binary for ${platform} is missing: it comes in the npm package ${pinned}, ` +
        `which is not installed beside ask-user@${version}; install the two together ` +
        `(\`npm install ask-user@${version} ${pinned}\`, with -g for a global install, or ` +
        `\`npx -p ask-user@${version} -p ${pinned} ask_user\`), or set ASK_USER_BINARY to an ` +
        `ask_user binary (npm leaves it out under --omit=optional, or when it cannot fetch it)`,
    );
  }
  const exe = process.platform === "win32" ? "ask_user.exe" : "ask_user";
  return { file: path.join(path.dirname(manifest), "bin", exe), from: name };
}

const { file, from } = binaryPath();
// execve cannot report a missing file (Node aborts), and spawn reports it
// late: check first.
try {
  fs.accessSync(file, fs.constants.X_OK);
  if (!fs.statSync(file).isFile()) throw new Error("not a file");
} catch {
  if (from === "ASK_USER_BINARY") {
    fail(`ASK_USER_BINARY is ${file}, which is not an executable file; point it at an ask_user binary, or unset it`);
  }
  fail(`${file} (from the npm package ${from}) is missing or not executable; install ask-user@${ownVersion()} again`);
}
const args = process.argv.slice(2);

if (typeof process.execve === "function") {
  process.execve(file, [file, ...args], process.env);
}

// The fallback: the binary as a child in this process group.
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];
// How long a signal the child may already have is held back (see onSignal).
const GRACE_MS = 1000;
let child = null;

function running() {
  return child !== null && child.exitCode === null && child.signalCode === null;
}

// Whether this process is in the foreground process group of its terminal,
// where a Ctrl-C reaches it: /proc/self/stat on Linux, ps elsewhere.
function inForegroundGroup() {
  let pgrp;
  let tpgid;
  try {
    // The fields after "(command)": state ppid pgrp session tty_nr tpgid …
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    [pgrp, tpgid] = [fields[2], fields[5]];
  } catch {
    try {
      const ps = require("child_process").execFileSync(
        "ps",
        ["-o", "pgid=", "-o", "tpgid=", "-p", String(process.pid)],
        { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 1000 },
      );
      [pgrp, tpgid] = ps.trim().split(/\s+/);
    } catch {
      return false;
    }
  }
  return Number(tpgid) > 0 && Number(tpgid) === Number(pgrp);
}

function pass(signal) {
  if (!running()) return;
  try {
    child.kill(signal);
  } catch {
    // Already gone: its exit is on its way.
  }
}

// A terminal sends its Ctrl-C (SIGINT) to its whole foreground process
// group, and a hangup reaches the group as SIGHUP (from the kernel or the
// shell): the child has the signal already. A second copy is not harmless:
// ask's web face and the inbox take a second signal as "end now", before
// the answer document is written. So SIGTERM, which no terminal sends, is
// passed on at once; SIGINT at once only when this process is not in its
// terminal's foreground group (someone signalled the launcher alone); and
// otherwise, or for SIGHUP, only if the child is still running GRACE_MS
// later (then the signal was the launcher's alone after all). On Windows
// the console sends Ctrl-C and its closing to every process attached to
// it, and child.kill() would terminate the child outright: nothing is
// passed on there.
function onSignal(signal) {
  if (!running() || process.platform === "win32") return;
  if (signal === "SIGTERM" || (signal === "SIGINT" && !inForegroundGroup())) {
    pass(signal);
  } else {
    setTimeout(pass, GRACE_MS, signal).unref();
  }
}

// Listening keeps Node from dying of these signals, and starts before the
// child does: the child may ask at once, and a Ctrl-C may come as soon.
for (const signal of FORWARDED) process.on(signal, onSignal);
child = spawn(file, args, { stdio: "inherit" });

child.on("error", (error) => {
  fail(`cannot run ${file} (from ${from}): ${error.message}`);
});

child.on("exit", (code, signal) => {
  for (const forwarded of FORWARDED) process.removeListener(forwarded, onSignal);
  if (code !== null) {
    process.exit(code);
  }
  // Die of the same signal, so that the shell (or the host) sees what it
  // would have seen from the binary itself; where that cannot be, the
  // shell's own convention: exit 128 + its number.
  // Node keeps SIGUSR1 for its inspector (it would start a debugger, not
  // die) and ignores SIGPIPE: those two end with the number alone.
  const number = require("os").constants.signals[signal] || 0;
  if (signal !== "SIGUSR1" && signal !== "SIGPIPE") {
    try {
      process.kill(process.pid, signal);
    } catch {
      // Cannot be raised here: the number says it.
    }
  }
  setImmediate(() => process.exit(128 + number));
});
