//! The release plumbing around the archive: install.sh against a local HTTP
//! server, the Homebrew formula (ruby), cargo-binstall's metadata (cargo
//! metadata), the pre-commit hooks (pre-commit try-repo), the GitHub Action's
//! steps, and the workflows (actionlint, check-jsonschema, shellcheck).
//! Outside tools come from .ci/setup-release.sh.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::clients::{require, runs};
use crate::common::dist::{Dist, dist};

/// The targets the release workflow builds, as install.sh and the formula
/// name them.
const RELEASE_TARGETS: [&str; 4] = [
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
];

const SETUP: &str = "(run .ci/setup-release.sh)";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `program`, when `program probe…` runs; else the test ends as ignored.
fn tool(program: &str, probe: &[&str], what: &str) -> PathBuf {
    require(
        runs(program, probe).then(|| PathBuf::from(program)),
        &format!("{what} {SETUP}"),
    )
}

/// The output of `command`, asserting that it exited 0.
fn success(command: &mut Command, what: &str) -> Output {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

fn sha256(path: &Path) -> String {
    let output = success(Command::new("sha256sum").arg(path), "sha256sum");
    text(&output.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

fn archive_name(version: &str, target: &str) -> String {
    format!("ask_user-{version}-{target}.tar.gz")
}

/// Every file below `dir`, relative to it.
fn files_below(dir: &Path) -> Vec<String> {
    if !dir.exists() {
        return Vec::new();
    }
    crate::common::dist::walk(dir)
        .iter()
        .map(|file| file.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

/// A YAML file as JSON, read by PyYAML (pre-commit's own YAML reader).
fn yaml(path: &Path) -> Value {
    tool("python3", &["-c", "import yaml"], "PyYAML");
    let output = success(
        Command::new("python3")
            .args([
                "-c",
                "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
            ])
            .arg(path),
        "PyYAML",
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Python's http.server on 127.0.0.1 serving a folder, on a port the system
/// chose; stopped when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn serve(dir: &Path) -> Server {
        tool("python3", &["--version"], "python3");
        let mut child = Command::new("python3")
            .args(["-u", "-m", "http.server", "--bind", "127.0.0.1", "0"])
            .arg("--directory")
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Ready when it says where it listens: "Serving HTTP on 127.0.0.1 port N (…".
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("http.server says where it listens within 30 s");
        let port: u16 = line
            .split_whitespace()
            .skip_while(|word| *word != "port")
            .nth(1)
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in http.server's line {line:?}"));
        Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A run of install.sh under POSIX sh, as `curl … | sh` runs it: HOME and
/// TMPDIR in `scratch`, PATH with `path_first` in front.
struct Install {
    code: i32,
    stderr: String,
}

fn install_sh(
    dist: &Dist,
    url: &str,
    args: &[&str],
    scratch: &Path,
    path_first: Option<&Path>,
) -> Install {
    install_sh_with(dist, url, args, scratch, path_first, &[])
}

/// install_sh with `env` set (XDG_DATA_HOME is unset unless `env` sets it).
fn install_sh_with(
    dist: &Dist,
    url: &str,
    args: &[&str],
    scratch: &Path,
    path_first: Option<&Path>,
    env: &[(&str, &Path)],
) -> Install {
    let mut path = std::env::split_paths(&std::env::var_os("PATH").unwrap()).collect::<Vec<_>>();
    if let Some(first) = path_first {
        path.insert(0, first.to_path_buf());
    }
    std::fs::create_dir_all(scratch.join("home")).unwrap();
    std::fs::create_dir_all(scratch.join("tmp")).unwrap();
    let output = Command::new("sh")
        .arg(dist.out.join("install.sh"))
        .args(args)
        .env("ASK_USER_INSTALL_URL", url)
        .env("HOME", scratch.join("home"))
        .env("TMPDIR", scratch.join("tmp"))
        .env("PATH", std::env::join_paths(path).unwrap())
        .env_remove("XDG_DATA_HOME")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.stdout.is_empty(),
        "install.sh says everything on stderr: {}",
        text(&output.stdout)
    );
    // Whatever happened, its temporary files are gone.
    assert_eq!(
        files_below(&scratch.join("tmp")),
        Vec::<String>::new(),
        "install.sh left files in TMPDIR"
    );
    Install {
        code: output.status.code().unwrap_or(-1),
        stderr: text(&output.stderr),
    }
}

/// The release binary, as the archive holds it.
fn archived_binary(dist: &Dist) -> Vec<u8> {
    let top = format!("ask_user-{}-{}", dist.version, dist.target);
    let output = success(
        Command::new("tar")
            .arg("-xzOf")
            .arg(dist.archive())
            .arg(format!("{top}/ask_user")),
        "tar -xzOf",
    );
    output.stdout
}

pub fn install_sh_installs_a_working_binary_from_a_local_server() {
    use std::os::unix::fs::PermissionsExt;
    let dist = dist();
    let server = Server::serve(&dist.out);
    let scratch = tempfile::tempdir().unwrap();
    let to = scratch.path().join("tools/bin");

    let run = install_sh(
        dist,
        &server.url,
        &["--to", to.to_str().unwrap()],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let installed = to.join("ask_user");
    assert_eq!(
        files_below(&to),
        ["ask_user"],
        "only the binary, no temp file"
    );
    assert_eq!(
        std::fs::metadata(&installed).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert!(std::fs::read(&installed).unwrap() == archived_binary(dist));
    let version = success(Command::new(&installed).arg("--version"), "ask_user");
    assert_eq!(
        text(&version.stdout),
        format!("ask_user {}\n", dist.version)
    );
    let archive = archive_name(&dist.version, &dist.target);
    assert!(
        run.stderr
            .contains(&format!("downloading {}/{archive}", server.url)),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "installed ask_user {} to {}",
            dist.version,
            installed.display()
        )),
        "{}",
        run.stderr
    );
    // The folder is not on PATH: it says how to put it there.
    assert!(
        run.stderr
            .contains(&format!("export PATH=\"{}:$PATH\"", to.display())),
        "{}",
        run.stderr
    );

    // Again, as --version V and over the installed binary (replaced whole),
    // with the folder on PATH: no PATH advice.
    std::fs::write(&installed, b"old").unwrap();
    let run = install_sh(
        dist,
        &server.url,
        &["--to", to.to_str().unwrap(), "--version", &dist.version],
        scratch.path(),
        Some(&to),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read(&installed).unwrap() == archived_binary(dist));
    assert!(!run.stderr.contains("export PATH"), "{}", run.stderr);
    assert_eq!(files_below(&to), ["ask_user"]);

    // Without --to: ~/.local/bin. A v in front of the version is the tag's.
    let run = install_sh(
        dist,
        &server.url,
        &["--version", &format!("v{}", dist.version)],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let home_bin = scratch.path().join("home/.local/bin");
    assert_eq!(files_below(&home_bin), ["ask_user"]);
    assert!(std::fs::read(home_bin.join("ask_user")).unwrap() == archived_binary(dist));
    assert_extras_installed(dist, &scratch.path().join("home/.local/share"), &run.stderr);
}

/// The files below the data folder that install.sh writes, relative to it:
/// the three shells' completions and every man page of the archive.
fn extras_expected(dist: &Dist) -> Vec<String> {
    let mut files = vec![
        "bash-completion/completions/ask_user".to_string(),
        "fish/vendor_completions.d/ask_user.fish".to_string(),
        "zsh/site-functions/_ask_user".to_string(),
    ];
    let unpacked = unpacked_archive(dist);
    for page in files_below(&unpacked.path().join("man")) {
        files.push(format!("man/man1/{page}"));
    }
    files.sort();
    files
}

/// The archive unpacked: its top folder's contents.
fn unpacked_archive(dist: &Dist) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    success(
        Command::new("tar")
            .arg("-xzf")
            .arg(dist.archive())
            .arg("--strip-components=1")
            .arg("-C")
            .arg(folder.path()),
        "tar -xzf",
    );
    folder
}

/// install.sh put the archive's completions and man pages, byte for byte,
/// below `data`, and said where.
fn assert_extras_installed(dist: &Dist, data: &Path, stderr: &str) {
    let unpacked = unpacked_archive(dist);
    assert_eq!(files_below(data), extras_expected(dist), "{stderr}");
    for (from, to) in [
        (
            "completions/ask_user.bash",
            "bash-completion/completions/ask_user",
        ),
        ("completions/_ask_user", "zsh/site-functions/_ask_user"),
        (
            "completions/ask_user.fish",
            "fish/vendor_completions.d/ask_user.fish",
        ),
        ("man/ask_user.1", "man/man1/ask_user.1"),
        ("man/ask_user-ask.1", "man/man1/ask_user-ask.1"),
    ] {
        assert!(
            std::fs::read(unpacked.path().join(from)).unwrap()
                == std::fs::read(data.join(to)).unwrap(),
            "{to} is the archive's {from}"
        );
    }
    let pages = files_below(&unpacked.path().join("man")).len();
    for line in [
        format!(
            "ask_user install: installed completions: bash {bash}, zsh {zsh}, fish {fish}\n",
            bash = data.join("bash-completion/completions/ask_user").display(),
            zsh = data.join("zsh/site-functions/_ask_user").display(),
            fish = data
                .join("fish/vendor_completions.d/ask_user.fish")
                .display(),
        ),
        format!(
            "ask_user install: installed {pages} man pages to {} (man ask_user)\n",
            data.join("man/man1").display()
        ),
        format!(
            "ask_user install: zsh reads {dir} once it is on fpath: put fpath+=({dir}) before compinit in ~/.zshrc\n",
            dir = data.join("zsh/site-functions").display()
        ),
    ] {
        assert!(stderr.contains(&line), "{line}in:\n{stderr}");
    }
}

/// Completions and man pages go below $XDG_DATA_HOME when it is set, below
/// --data-dir when given; a data folder that cannot be written costs only
/// them (exit 0, the binary installed, one line that says so).
pub fn install_sh_installs_completions_and_man_pages_under_the_data_folder() {
    let dist = dist();
    let server = Server::serve(&dist.out);
    let scratch = tempfile::tempdir().unwrap();
    let to = scratch.path().join("bin");

    let xdg = scratch.path().join("xdg-data");
    let run = install_sh_with(
        dist,
        &server.url,
        &["--to", to.to_str().unwrap()],
        scratch.path(),
        None,
        &[("XDG_DATA_HOME", &xdg)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_extras_installed(dist, &xdg, &run.stderr);
    assert!(!scratch.path().join("home/.local/share").exists());

    // --data-dir wins over XDG_DATA_HOME; an old page of ours that the
    // archive no longer has goes, another program's page stays.
    let chosen = scratch.path().join("chosen");
    std::fs::create_dir_all(chosen.join("man/man1")).unwrap();
    std::fs::write(chosen.join("man/man1/ask_user-gone.1"), "old").unwrap();
    std::fs::write(chosen.join("man/man1/other.1"), "other").unwrap();
    let run = install_sh_with(
        dist,
        &server.url,
        &[
            "--to",
            to.to_str().unwrap(),
            "--data-dir",
            chosen.to_str().unwrap(),
        ],
        scratch.path(),
        None,
        &[("XDG_DATA_HOME", &xdg)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::remove_file(chosen.join("man/man1/other.1")).unwrap();
    assert_extras_installed(dist, &chosen, &run.stderr);

    // A data folder that is a file: the binary is installed all the same.
    std::fs::remove_dir_all(&to).unwrap();
    let file = scratch.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let run = install_sh(
        dist,
        &server.url,
        &[
            "--to",
            to.to_str().unwrap(),
            &format!("--data-dir={}", file.display()),
        ],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read(to.join("ask_user")).unwrap() == archived_binary(dist));
    assert!(
        run.stderr.contains(&format!(
            "ask_user install: could not write the completions and man pages under {}; \
             ask_user itself is installed (choose another folder with --data-dir DIR, or run \
             ask_user completions SHELL)\n",
            file.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("installed completions"),
        "{}",
        run.stderr
    );

    // Neither HOME nor XDG_DATA_HOME (with --to): the binary, and a line.
    std::fs::remove_dir_all(&to).unwrap();
    let output = Command::new("sh")
        .arg(dist.out.join("install.sh"))
        .args(["--to", to.to_str().unwrap()])
        .env("ASK_USER_INSTALL_URL", &server.url)
        .env("TMPDIR", scratch.path().join("tmp"))
        .env_remove("HOME")
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(std::fs::read(to.join("ask_user")).unwrap() == archived_binary(dist));
    assert!(
        stderr.contains(
            "ask_user install: HOME and XDG_DATA_HOME are not set: the completions and man \
             pages are not installed (give --data-dir DIR)\n"
        ),
        "{stderr}"
    );
}

/// Where install.sh put them, the shells and man find them: bash-completion
/// loads the bash script on demand, zsh's compinit finds `_ask_user` once
/// the folder is on fpath (as install.sh says), fish completes from its
/// vendor folder, and `man -w ask_user` finds the page beside ~/.local/bin.
pub fn install_sh_completions_and_man_pages_load_where_installed() {
    let dist = dist();
    let zsh = tool("zsh", &["-c", "exit 0"], "zsh (run .ci/setup-release.sh)");
    let fish = tool("fish", &["-c", "exit 0"], "fish (run .ci/setup-release.sh)");
    let man = tool("man", &["-w", "man"], "man (apt man-db)");
    let loader = Path::new("/usr/share/bash-completion/bash_completion");
    require(
        loader.is_file().then_some(()),
        "bash-completion (apt bash-completion)",
    );
    let server = Server::serve(&dist.out);
    let scratch = tempfile::tempdir().unwrap();
    let run = install_sh(dist, &server.url, &[], scratch.path(), None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let home = scratch.path().join("home");
    let data = home.join(".local/share");
    let path = format!("{}:/usr/bin:/bin", home.join(".local/bin").display());
    let shell = |program: &Path, args: &[&str]| {
        let output = Command::new(program)
            .args(args)
            .env("HOME", &home)
            .env("PATH", &path)
            .env_remove("XDG_DATA_HOME")
            .env_remove("MANPATH")
            .env_remove("BASH_COMPLETION_USER_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (text(&output.stdout), text(&output.stderr))
    };

    let (stdout, stderr) = shell(
        Path::new("bash"),
        &[
            "-c",
            &format!(
                "source {}; __load_completion ask_user || exit 7; \
                 COMP_WORDS=(ask_user se); COMP_CWORD=1; COMP_LINE='ask_user se'; COMP_POINT=11; \
                 _ask_user ask_user se ask_user; printf 'offer:%s\\n' \"${{COMPREPLY[@]}}\"",
                loader.display()
            ),
        ],
    );
    assert_eq!(stdout, "offer:setup\n", "bash: {stderr}");

    let (stdout, stderr) = shell(
        &zsh,
        &[
            "-f",
            "-c",
            &format!(
                "fpath+=({}); autoload -Uz compinit; compinit -u -d {}; print -r -- \"comp:$_comps[ask_user]\"",
                data.join("zsh/site-functions").display(),
                scratch.path().join("zcompdump").display()
            ),
        ],
    );
    assert_eq!(stdout, "comp:_ask_user\n", "zsh: {stderr}");

    // fish reads its user's data folder with its configuration loaded.
    let (stdout, stderr) = shell(&fish, &["-c", "complete -C 'ask_user se'"]);
    let words: Vec<&str> = stdout
        .lines()
        .map(|line| line.split('\t').next().unwrap())
        .collect();
    assert_eq!(words, ["setup"], "fish: {stdout}{stderr}");

    let (stdout, stderr) = shell(&man, &["-w", "ask_user"]);
    assert_eq!(
        stdout,
        format!("{}\n", data.join("man/man1/ask_user.1").display()),
        "man: {stderr}"
    );
}

/// A folder served as a release: the archive (flipped in one byte when
/// `tamper`) and, when `sums`, SHA256SUMS.
fn release_folder(dist: &Dist, tamper: bool, sums: bool) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let archive = archive_name(&dist.version, &dist.target);
    let mut bytes = std::fs::read(dist.archive()).unwrap();
    if tamper {
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x01;
    }
    std::fs::write(folder.path().join(&archive), bytes).unwrap();
    if sums {
        std::fs::copy(
            dist.out.join("SHA256SUMS"),
            folder.path().join("SHA256SUMS"),
        )
        .unwrap();
    }
    folder
}

pub fn install_sh_refuses_a_tampered_archive_and_installs_nothing() {
    let dist = dist();
    let folder = release_folder(dist, true, true);
    let server = Server::serve(folder.path());
    let scratch = tempfile::tempdir().unwrap();
    let archive = archive_name(&dist.version, &dist.target);
    let listed = sha256(&dist.archive());
    let tampered = sha256(&folder.path().join(&archive));

    // Into a folder that does not exist: it is not even created.
    let fresh = scratch.path().join("fresh/bin");
    let run = install_sh(
        dist,
        &server.url,
        &["--to", fresh.to_str().unwrap()],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "ask_user install: error: checksum mismatch for {archive}: SHA256SUMS says {listed}, the download is {tampered}; nothing was installed"
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("installed ask_user"), "{}", run.stderr);
    assert!(!scratch.path().join("fresh").exists());

    // Over an installed ask_user: it stays as it was, and nothing is added.
    let existing = scratch.path().join("bin");
    std::fs::create_dir_all(&existing).unwrap();
    std::fs::write(existing.join("ask_user"), b"the old one").unwrap();
    let run = install_sh(
        dist,
        &server.url,
        &["--to", existing.to_str().unwrap()],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("checksum mismatch"), "{}", run.stderr);
    assert_eq!(files_below(&existing), ["ask_user"]);
    assert_eq!(
        std::fs::read(existing.join("ask_user")).unwrap(),
        b"the old one"
    );
}

pub fn install_sh_refuses_a_release_without_sha256sums() {
    let dist = dist();
    let folder = release_folder(dist, false, false);
    let server = Server::serve(folder.path());
    let scratch = tempfile::tempdir().unwrap();
    let to = scratch.path().join("bin");
    let run = install_sh(
        dist,
        &server.url,
        &["--to", to.to_str().unwrap()],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "ask_user install: error: could not download {}/SHA256SUMS",
            server.url
        )),
        "{}",
        run.stderr
    );
    assert!(!to.exists());

    // A version the release does not have: SHA256SUMS lists no archive for it.
    let server = Server::serve(&dist.out);
    let run = install_sh(
        dist,
        &server.url,
        &["--to", to.to_str().unwrap(), "--version", "9.9.9"],
        scratch.path(),
        None,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "ask_user install: error: {}/SHA256SUMS lists no archive for {} version 9.9.9",
            server.url, dist.target
        )),
        "{}",
        run.stderr
    );
    assert!(!to.exists());
}

/// A folder with a `uname` that reports `os` and `cpu`.
fn uname_shim(os: &str, cpu: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let shim = folder.path().join("uname");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\ncase \"$1\" in -s) echo {os} ;; -m) echo {cpu} ;; *) echo {os} ;; esac\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    folder
}

pub fn install_sh_maps_each_platform_to_its_archive_and_names_an_unknown_one() {
    let dist = dist();
    let server = Server::serve(&dist.out);
    let scratch = tempfile::tempdir().unwrap();
    let to = scratch.path().join("bin");
    // uname is replaced by a PATH shim: install.sh has no platform override.
    // The local release has this machine's archive only, so another
    // platform's run names the archive it looked for.
    for (os, cpu, target) in [
        ("Linux", "aarch64", "aarch64-unknown-linux-gnu"),
        ("Linux", "arm64", "aarch64-unknown-linux-gnu"),
        ("Darwin", "arm64", "aarch64-apple-darwin"),
        ("Darwin", "x86_64", "x86_64-apple-darwin"),
    ] {
        let shim = uname_shim(os, cpu);
        let run = install_sh(
            dist,
            &server.url,
            &["--to", to.to_str().unwrap()],
            scratch.path(),
            Some(shim.path()),
        );
        assert_eq!(run.code, 1, "{os} {cpu}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "SHA256SUMS lists no archive for {target}: this release has no build for this platform"
            )),
            "{os} {cpu}: {}",
            run.stderr
        );
        assert!(RELEASE_TARGETS.contains(&target));
    }
    let shim = uname_shim("Linux", "x86_64");
    let run = install_sh(
        dist,
        &server.url,
        &["--to", to.to_str().unwrap()],
        scratch.path(),
        Some(shim.path()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::remove_dir_all(&to).unwrap();

    // An unknown platform fails before any download (the URL is a closed port).
    for (os, cpu) in [
        ("FreeBSD", "amd64"),
        ("Linux", "riscv64"),
        ("MINGW64_NT-10.0", "x86_64"),
    ] {
        let shim = uname_shim(os, cpu);
        let run = install_sh(
            dist,
            "http://127.0.0.1:9",
            &["--to", to.to_str().unwrap()],
            scratch.path(),
            Some(shim.path()),
        );
        assert_eq!(run.code, 1, "{os} {cpu}: {}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "ask_user install: error: no release archive for this platform ({os} {cpu}): \
                 archives exist for Linux and macOS on x86_64 and aarch64; install another way \
                 (npm, PyPI, cargo): https://github.com/ask-user/ask_user#install\n"
            )
        );
        assert!(!to.exists());
    }
}

pub fn install_sh_refuses_bad_arguments_with_a_usage_line() {
    let dist = dist();
    let scratch = tempfile::tempdir().unwrap();
    for (args, message) in [
        (
            &["--bogus"][..],
            "ask_user install: unknown argument --bogus (usage: install.sh [--to DIR] [--data-dir DIR] [--version V] [--help])\n",
        ),
        (
            &["--data-dir"][..],
            "ask_user install: --data-dir needs a folder (e.g. --data-dir ~/.local/share)\n",
        ),
        (
            &["--to"][..],
            "ask_user install: --to needs a folder (e.g. --to ~/.local/bin)\n",
        ),
        (
            &["--version"][..],
            "ask_user install: --version needs a version (e.g. --version 0.1.0)\n",
        ),
        (
            &["--version", "../../x"][..],
            "ask_user install: --version takes a version like 0.1.0, not ../../x\n",
        ),
    ] {
        let run = install_sh(dist, "http://127.0.0.1:9", args, scratch.path(), None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr, message, "{args:?}");
    }
    // --help prints the header, to stdout.
    let output = success(
        Command::new("sh")
            .arg(dist.out.join("install.sh"))
            .arg("--help"),
        "install.sh --help",
    );
    let help = text(&output.stdout);
    assert!(help.starts_with("install.sh: installs ask_user"), "{help}");
    assert!(help.contains("ASK_USER_INSTALL_URL"), "{help}");
    assert!(
        help.contains("--to DIR")
            && help.contains("--data-dir DIR")
            && help.contains("--version V"),
        "{help}"
    );
}

/// The formula's url and sha256 on each Homebrew platform ("linux/intel"…),
/// read by Ruby through a stand-in for Homebrew's Formula DSL (Homebrew
/// itself cannot be installed offline): the on_* blocks run only on their
/// platform, so what a platform sees is what `brew` would download there.
fn formula_per_platform(formula: &Path) -> Value {
    const DSL: &str = r##"
require "json"
class Formula
  @@seen = {}
  def self.seen = @@seen
  %w[desc homepage version license url sha256].each do |key|
    define_singleton_method(key) { |value| (@@seen[key] ||= []) << value }
  end
  def self.on_macos = ($os == "macos" ? yield : nil)
  def self.on_linux = ($os == "linux" ? yield : nil)
  def self.on_arm = ($cpu == "arm" ? yield : nil)
  def self.on_intel = ($cpu == "intel" ? yield : nil)
  def self.test(*) = nil
end
seen = {}
%w[macos linux].product(%w[arm intel]).each do |os, cpu|
  $os, $cpu = os, cpu
  Formula.seen.clear
  load ARGV[0]
  raise "the formula defines AskUser < Formula" unless AskUser.superclass == Formula
  seen["#{os}/#{cpu}"] = Formula.seen.dup
end
puts JSON.generate(seen)
"##;
    let output = success(
        Command::new("ruby").args(["-e", DSL]).arg(formula),
        "ruby reading the formula",
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn ruby() {
    tool("ruby", &["--version"], "ruby");
}

fn ruby_syntax_ok(formula: &Path) {
    let output = success(Command::new("ruby").arg("-c").arg(formula), "ruby -c");
    assert_eq!(text(&output.stdout), "Syntax OK\n");
}

/// The Homebrew platform key of a release target.
fn homebrew_platform(target: &str) -> &'static str {
    match target {
        "x86_64-unknown-linux-gnu" => "linux/intel",
        "aarch64-unknown-linux-gnu" => "linux/arm",
        "x86_64-apple-darwin" => "macos/intel",
        "aarch64-apple-darwin" => "macos/arm",
        other => panic!("no Homebrew platform for {other}"),
    }
}

fn release_url(version: &str, target: &str) -> String {
    format!(
        "https://github.com/ask-user/ask_user/releases/download/v{version}/{}",
        archive_name(version, target)
    )
}

pub fn homebrew_formula_pins_the_archives_url_and_sha256() {
    let dist = dist();
    ruby();
    let formula = dist.out.join("ask_user.rb");
    ruby_syntax_ok(&formula);
    let seen = formula_per_platform(&formula);
    let here = homebrew_platform(&dist.target);
    for (platform, values) in seen.as_object().unwrap() {
        assert_eq!(values["version"], serde_json::json!([dist.version]));
        assert_eq!(values["license"], serde_json::json!(["MIT"]));
        assert_eq!(
            values["desc"],
            serde_json::json!([
                "Ask a person a structured question from an AI agent; get strict JSON back"
            ])
        );
        if platform == here {
            // Exactly one url, this archive's, and the archive's own sha256.
            assert_eq!(
                values["url"],
                serde_json::json!([release_url(&dist.version, &dist.target)])
            );
            assert_eq!(
                values["sha256"],
                serde_json::json!([sha256(&dist.archive())])
            );
        } else {
            // One run of scripts/dist has one platform's archive.
            assert!(values.get("url").is_none(), "{platform}: {values}");
        }
    }
    // It installs the binary, the man pages and the three completions the
    // archive holds under those names.
    let source = std::fs::read_to_string(&formula).unwrap();
    for line in [
        "bin.install \"ask_user\"",
        "man1.install Dir[\"man/*.1\"]",
        "bash_completion.install \"completions/ask_user.bash\" => \"ask_user\"",
        "zsh_completion.install \"completions/_ask_user\"",
        "fish_completion.install \"completions/ask_user.fish\"",
    ] {
        assert!(source.contains(line), "{line} in\n{source}");
    }
    let top = format!("ask_user-{}-{}", dist.version, dist.target);
    let listing = text(
        &success(
            Command::new("tar").arg("-tzf").arg(dist.archive()),
            "tar -tzf",
        )
        .stdout,
    );
    for file in [
        "ask_user",
        "completions/ask_user.bash",
        "completions/_ask_user",
        "completions/ask_user.fish",
        "man/ask_user.1",
    ] {
        assert!(
            listing.lines().any(|line| line == format!("{top}/{file}")),
            "{file} in the archive:\n{listing}"
        );
    }
}

fn homebrew_build(out: &Path, version: &str, target: &str) -> Output {
    Command::new(root().join("packaging/homebrew/build"))
        .arg(out)
        .arg("unused-binary")
        .args([version, target])
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

pub fn homebrew_build_covers_every_platform_sha256sums_lists_and_refuses_a_mismatch() {
    ruby();
    let out = tempfile::tempdir().unwrap();
    let version = "1.2.3";
    // As the release workflow's merged folder: every platform's archive
    // (stand-ins), a Windows zip the formula has no use for, one SHA256SUMS.
    let mut names = Vec::new();
    for target in RELEASE_TARGETS {
        let name = archive_name(version, target);
        std::fs::write(out.path().join(&name), format!("the {target} archive")).unwrap();
        names.push(name);
    }
    let zip = format!("ask_user-{version}-x86_64-pc-windows-msvc.zip");
    std::fs::write(out.path().join(&zip), "zip").unwrap();
    names.push(zip);
    let sums = success(
        Command::new("sha256sum")
            .args(&names)
            .current_dir(out.path()),
        "sha256sum",
    );
    std::fs::write(out.path().join("SHA256SUMS"), &sums.stdout).unwrap();

    let output = homebrew_build(out.path(), version, "x86_64-unknown-linux-gnu");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    let formula = out.path().join("ask_user.rb");
    ruby_syntax_ok(&formula);
    let seen = formula_per_platform(&formula);
    for target in RELEASE_TARGETS {
        let values = &seen[homebrew_platform(target)];
        assert_eq!(
            values["url"],
            serde_json::json!([release_url(version, target)])
        );
        assert_eq!(
            values["sha256"],
            serde_json::json!([sha256(&out.path().join(archive_name(version, target)))])
        );
    }
    assert!(
        !std::fs::read_to_string(&formula)
            .unwrap()
            .contains("windows")
    );

    // An archive that is not the one SHA256SUMS lists.
    let changed = out
        .path()
        .join(archive_name(version, "aarch64-apple-darwin"));
    std::fs::write(&changed, "another archive").unwrap();
    let output = homebrew_build(out.path(), version, "x86_64-unknown-linux-gnu");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).starts_with(&format!(
            "homebrew/build: {} has sha256 {}, but SHA256SUMS lists ",
            changed.display(),
            sha256(&changed)
        )),
        "{}",
        text(&output.stderr)
    );
    std::fs::remove_file(&changed).unwrap();

    // The target's own archive must be listed; SHA256SUMS must be there.
    let output = homebrew_build(out.path(), "9.9.9", "x86_64-unknown-linux-gnu");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "homebrew/build: {}/SHA256SUMS lists no ask_user-9.9.9-x86_64-unknown-linux-gnu.tar.gz\n",
            out.path().display()
        )
    );
    std::fs::remove_file(out.path().join("SHA256SUMS")).unwrap();
    let output = homebrew_build(out.path(), version, "x86_64-unknown-linux-gnu");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("SHA256SUMS is missing"),
        "{}",
        text(&output.stderr)
    );
    let output = Command::new(root().join("packaging/homebrew/build"))
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "usage: packaging/homebrew/build OUT BINARY VERSION TARGET\n"
    );
}

/// cargo-binstall's template with `{ key }` (or `{key}`) filled in.
fn binstall_expand(template: &str, values: &[(&str, &str)]) -> String {
    let mut expanded = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        expanded.push_str(&rest[..open]);
        let close = rest[open..].find('}').expect("a closing brace") + open;
        let key = rest[open + 1..close].trim();
        let value = values
            .iter()
            .find(|(name, _)| *name == key)
            .unwrap_or_else(|| panic!("binstall has no {{ {key} }} here"))
            .1;
        expanded.push_str(value);
        rest = &rest[close + 1..];
    }
    expanded.push_str(rest);
    expanded
}

pub fn binstall_metadata_expands_to_the_release_archive_and_its_binary() {
    let dist = dist();
    let output = success(
        Command::new(env!("CARGO"))
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--offline",
            ])
            .current_dir(&dist.clone),
        "cargo metadata",
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let package = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|package| package["name"] == "ask_user")
        .expect("the ask_user package");
    let binstall = &package["metadata"]["binstall"];
    let repo = package["repository"].as_str().expect("a repository");
    assert_eq!(repo, "https://github.com/ask-user/ask_user");
    assert_eq!(binstall["pkg-fmt"], "tgz", "{binstall}");
    let values = [
        ("repo", repo),
        ("name", "ask_user"),
        ("version", dist.version.as_str()),
        ("target", dist.target.as_str()),
        ("bin", "ask_user"),
        ("binary-ext", ""),
    ];
    let url = binstall_expand(binstall["pkg-url"].as_str().unwrap(), &values);
    assert_eq!(url, release_url(&dist.version, &dist.target));
    assert!(dist.archive().ends_with(url.rsplit('/').next().unwrap()));
    assert!(dist.archive().is_file());
    // bin-dir is the binary's path inside the archive.
    let bin_dir = binstall_expand(binstall["bin-dir"].as_str().unwrap(), &values);
    assert_eq!(
        bin_dir,
        format!("ask_user-{}-{}/ask_user", dist.version, dist.target)
    );
    let listing = text(
        &success(
            Command::new("tar").arg("-tzf").arg(dist.archive()),
            "tar -tzf",
        )
        .stdout,
    );
    assert!(
        listing.lines().any(|line| line == bin_dir),
        "{bin_dir} in\n{listing}"
    );
    // Windows archives are .zip (scripts/dist), with ask_user.exe inside.
    for target in ["x86_64-pc-windows-msvc", "x86_64-pc-windows-gnu"] {
        let windows = &binstall["overrides"][target];
        assert_eq!(windows["pkg-fmt"], "zip", "{target}: {binstall}");
        let values = [
            ("repo", repo),
            ("name", "ask_user"),
            ("version", dist.version.as_str()),
            ("target", target),
            ("bin", "ask_user"),
            ("binary-ext", ".exe"),
        ];
        let url = binstall_expand(windows["pkg-url"].as_str().unwrap(), &values);
        assert_eq!(
            url,
            release_url(&dist.version, target).replace(".tar.gz", ".zip"),
            "{target}"
        );
        let bin_dir = binstall_expand(binstall["bin-dir"].as_str().unwrap(), &values);
        assert_eq!(
            bin_dir,
            format!("ask_user-{}-{target}/ask_user.exe", dist.version)
        );
    }
}

fn git(dir: &Path, args: &[&str]) {
    success(
        Command::new("git")
            .args([
                "-c",
                "user.name=ask_user tests",
                "-c",
                "user.email=tests@ask-user.invalid",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_DATE", "2026-11-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-11-01T00:00:00Z"),
        &format!("git {args:?}"),
    );
}

/// `dir` as a git repository with everything in it committed.
fn commit_all(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "the files"]);
}

/// A user's repository: a good and a bad prompt under prompts/, and JSON
/// outside it that is no prompt (the hooks' `files:` leaves it alone).
fn user_repository() -> tempfile::TempDir {
    let user = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(user.path().join("prompts/deep")).unwrap();
    std::fs::write(
        user.path().join("prompts/good.json"),
        r#"{"question":"Ship it?","options":["Yes","No"]}"#,
    )
    .unwrap();
    std::fs::write(
        user.path().join("prompts/deep/bad.json"),
        r#"{"question":"Pick one","type":"choice"}"#,
    )
    .unwrap();
    std::fs::write(user.path().join("package.json"), r#"{"name":"app"}"#).unwrap();
    std::fs::write(user.path().join("README.md"), "not JSON\n").unwrap();
    commit_all(user.path());
    user
}

/// `pre-commit try-repo HOOKS HOOK --all-files` in `user`.
fn try_repo(hooks: &Path, hook: &str, user: &Path, env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let pre_commit = tool("pre-commit", &["--version"], "pre-commit");
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(pre_commit);
    command
        .args(["try-repo", "--color=never", "--all-files"])
        .arg(hooks)
        .arg(hook)
        .current_dir(user)
        .env("PRE_COMMIT_HOME", home.path())
        .stdin(Stdio::null());
    // The test process's own build settings are not the user's.
    for key in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_TARGET_DIR",
    ] {
        command.env_remove(key);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// What a pre-commit run of ask_user's hook says, on the user repository:
/// the bad prompt fails naming file and code; without it, the hook passes.
fn assert_hook_checks_prompts(hooks: &Path, hook: &str, env: &[(&str, &std::ffi::OsStr)]) {
    let user = user_repository();
    let output = try_repo(hooks, hook, user.path(), env);
    let said = text(&output.stdout) + &text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("- hook id: {hook}\n- exit code: 1")),
        "{said}"
    );
    assert!(
        said.contains(
            "prompts/deep/bad.json: MISSING_OPTIONS: options is required for a select question"
        ),
        "{said}"
    );
    assert!(
        said.contains("ask_user check: 2 files checked, 1 valid, 1 invalid"),
        "only the two prompts are checked: {said}"
    );
    assert!(!said.contains("package.json"), "{said}");

    git(user.path(), &["rm", "-q", "prompts/deep/bad.json"]);
    git(user.path(), &["commit", "-q", "-m", "fixed"]);
    let output = try_repo(hooks, hook, user.path(), env);
    let said = text(&output.stdout) + &text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.lines()
            .any(|line| line.starts_with("Check ask_user prompt files") && line.ends_with("Passed")),
        "{said}"
    );
}

pub fn pre_commit_system_hook_fails_a_bad_prompt_naming_file_and_code() {
    let dist = dist();
    let pre_commit = tool("pre-commit", &["--version"], "pre-commit");
    success(
        Command::new(&pre_commit)
            .arg("validate-manifest")
            .arg(root().join(".pre-commit-hooks.yaml")),
        "pre-commit validate-manifest",
    );
    // The hook repository as users pin it: this repository's hook manifest.
    let hooks = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join(".pre-commit-hooks.yaml"),
        hooks.path().join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    commit_all(hooks.path());
    // ask_user on PATH, as any channel installs it: the archive's binary.
    let bin = tempfile::tempdir().unwrap();
    std::fs::write(bin.path().join("ask_user"), archived_binary(dist)).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            bin.path().join("ask_user"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let mut path = vec![bin.path().to_path_buf()];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let path = std::env::join_paths(path).unwrap();
    assert_hook_checks_prompts(hooks.path(), "ask-user-check-system", &[("PATH", &path)]);
}

pub fn pre_commit_rust_hook_builds_ask_user_with_cargo_and_checks_prompts() {
    tool("pre-commit", &["--version"], "pre-commit");
    // The hook repository: this source tree, committed (pre-commit clones it
    // and runs `cargo install --path .` in the clone, as for a user).
    let hooks = tempfile::tempdir().unwrap();
    let tree = hooks.path().join("ask_user");
    crate::common::clone::sync_tree(root(), &tree);
    commit_all(&tree);
    // What the build costs: the release profile's fat LTO takes about 9
    // minutes cold here, so this build keeps the profile's settings but
    // optimization (same code, same hook wiring), and its dependencies in a
    // target folder kept between runs (about 100 s cold, 12 s warm).
    let target = crate::common::clone::target_dir().join("dist-test/pre-commit-cargo");
    let env: Vec<(&str, &std::ffi::OsStr)> = vec![
        ("CARGO_TARGET_DIR", target.as_os_str()),
        ("CARGO_PROFILE_RELEASE_LTO", "false".as_ref()),
        ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256".as_ref()),
        ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0".as_ref()),
    ];
    assert_hook_checks_prompts(&tree, "ask-user-check", &env);
}

/// The `run:` scripts of action.yml's steps, with each step's env names.
fn action_steps() -> Vec<(Vec<String>, String)> {
    let action = yaml(&root().join("action.yml"));
    assert_eq!(action["runs"]["using"], "composite");
    action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            assert_eq!(step["shell"], "bash", "{step}");
            let env = step["env"]
                .as_object()
                .map(|env| env.keys().cloned().collect())
                .unwrap_or_default();
            (env, step["run"].as_str().unwrap().to_string())
        })
        .collect()
}

pub fn action_yml_steps_install_a_release_and_annotate_bad_files() {
    let dist = dist();
    let server = Server::serve(&dist.out);
    let steps = action_steps();
    assert_eq!(steps.len(), 2, "install, then check");
    let (install_env, install) = &steps[0];
    let (check_env, check) = &steps[1];
    let sorted = |names: &[String]| {
        let mut names = names.to_vec();
        names.sort();
        names
    };
    assert_eq!(sorted(install_env), ["ACTION_PATH", "ASK_USER_VERSION"]);
    assert_eq!(sorted(check_env), ["ASK_USER_FORMAT", "ASK_USER_PATHS"]);

    // The runner's part, as GitHub's runner does it: RUNNER_TEMP, a
    // GITHUB_PATH file whose lines go in front of PATH for later steps, the
    // action's folder (this repository) and the inputs as env.
    let runner = tempfile::tempdir().unwrap();
    let github_path = runner.path().join("github_path");
    std::fs::write(&github_path, "").unwrap();
    let step = |script: &str, env: &[(&str, &str)], cwd: &Path| -> Output {
        let added = std::fs::read_to_string(&github_path).unwrap();
        let mut path: Vec<PathBuf> = added.lines().rev().map(PathBuf::from).collect();
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
        let mut command = Command::new("bash");
        command
            .args([
                "--noprofile",
                "--norc",
                "-e",
                "-o",
                "pipefail",
                "-c",
                script,
            ])
            .current_dir(cwd)
            .env("RUNNER_TEMP", runner.path())
            .env("GITHUB_PATH", &github_path)
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("ASK_USER_INSTALL_URL", &server.url)
            .stdin(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    // version: the tag, as release.yml passes ${{ github.ref_name }}.
    let tag = format!("v{}", dist.version);
    let output = step(
        install,
        &[
            ("ACTION_PATH", root().to_str().unwrap()),
            ("ASK_USER_VERSION", &tag),
        ],
        runner.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let installed = runner.path().join("ask_user/bin");
    assert_eq!(
        std::fs::read_to_string(&github_path).unwrap(),
        format!("{}\n", installed.display())
    );
    assert!(std::fs::read(installed.join("ask_user")).unwrap() == archived_binary(dist));

    let user = user_repository();
    let output = step(
        check,
        &[
            ("ASK_USER_PATHS", "prompts/\n"),
            ("ASK_USER_FORMAT", "github"),
        ],
        user.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "::error file=prompts/deep/bad.json,title=ask_user MISSING_OPTIONS::options is required \
         for a select question: give 2 to 20 choices (at options)\n"
    );
    // Paths split on spaces and new lines; a good file passes.
    let output = step(
        check,
        &[
            ("ASK_USER_PATHS", "prompts/good.json\n  prompts/good.json "),
            ("ASK_USER_FORMAT", "github"),
        ],
        user.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "");
    let output = step(
        check,
        &[("ASK_USER_PATHS", " \n"), ("ASK_USER_FORMAT", "github")],
        user.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stdout),
        "::error title=ask_user::the paths input is empty: name the files or folders to check\n"
    );

    // The latest release (no version): the server's SHA256SUMS names it.
    std::fs::remove_dir_all(&installed).unwrap();
    std::fs::write(&github_path, "").unwrap();
    let output = step(
        install,
        &[
            ("ACTION_PATH", root().to_str().unwrap()),
            ("ASK_USER_VERSION", "latest"),
        ],
        runner.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(installed.join("ask_user").is_file());
}

pub fn actionlint_passes_the_workflows_and_reads_the_action() {
    let actionlint = tool("actionlint", &["-version"], "actionlint");
    // With shellcheck on PATH, actionlint checks every run: block with it.
    tool("shellcheck", &["--version"], "shellcheck");
    let output = Command::new(&actionlint)
        .args(["-no-color", "-oneline"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert_eq!(text(&output.stdout), "");
    // actionlint reads action.yml where a workflow uses it (`uses: ./`):
    // release.yml does, so a wrong input name there is an error.
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(
        release.contains("uses: ./\n"),
        "release.yml runs the action"
    );
    let copy = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(copy.path().join(".github/workflows")).unwrap();
    std::fs::copy(root().join("action.yml"), copy.path().join("action.yml")).unwrap();
    std::fs::write(
        copy.path().join(".github/workflows/release.yml"),
        release.replacen("paths: tests/check/inputs", "pathz: tests/check/inputs", 1),
    )
    .unwrap();
    commit_all(copy.path());
    let output = Command::new(&actionlint)
        .args(["-no-color", "-oneline"])
        .current_dir(copy.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stdout).contains(
            "input \"pathz\" is not defined in action \"ask_user check\" defined at \"./\""
        ),
        "{}",
        text(&output.stdout)
    );
}

pub fn check_jsonschema_accepts_the_action_and_the_workflows() {
    let check = tool("check-jsonschema", &["--version"], "check-jsonschema");
    let run = |schema: &str, files: &[PathBuf]| -> Output {
        Command::new(&check)
            .args(["--builtin-schema", schema])
            .args(files)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let output = run("vendor.github-actions", &[root().join("action.yml")]);
    assert!(output.status.success(), "{}", text(&output.stdout));
    let workflows = [
        root().join(".github/workflows/ci.yml"),
        root().join(".github/workflows/release.yml"),
    ];
    let output = run("vendor.github-workflows", &workflows);
    assert!(output.status.success(), "{}", text(&output.stdout));
    // The schema does refuse a broken action.
    let broken = tempfile::tempdir().unwrap();
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let copy = broken.path().join("action.yml");
    std::fs::write(
        &copy,
        action.replace("using: composite", "using: compozite"),
    )
    .unwrap();
    let output = run("vendor.github-actions", &[copy]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
}

pub fn shell_scripts_and_action_steps_are_shellcheck_clean() {
    let shellcheck = tool("shellcheck", &["--version"], "shellcheck");
    let check = |args: &[&str], file: &Path| {
        let output = Command::new(&shellcheck)
            .args(args)
            .arg(file)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "shellcheck {}:\n{}",
            file.display(),
            text(&output.stdout)
        );
    };
    // install.sh is POSIX sh: `curl | sh` runs whatever sh is.
    check(&["--shell=sh"], &root().join("install.sh"));
    check(&[], &root().join("packaging/homebrew/build"));
    check(&[], &root().join(".ci/setup-release.sh"));
    let scripts = tempfile::tempdir().unwrap();
    for (index, (_, script)) in action_steps().iter().enumerate() {
        // Inputs reach the scripts as env, never as ${{ }} pasted into code.
        assert!(!script.contains("${{"), "{script}");
        let file = scripts.path().join(format!("step{index}.sh"));
        std::fs::write(&file, format!("#!/usr/bin/env bash\n{script}")).unwrap();
        check(&[], &file);
    }
}

pub fn workflows_pin_actions_by_commit_and_build_the_platforms_installers_expect() {
    for workflow in ["ci.yml", "release.yml"] {
        let source =
            std::fs::read_to_string(root().join(".github/workflows").join(workflow)).unwrap();
        for line in source.lines().filter(|line| line.contains("uses: ")) {
            let used = line.split("uses: ").nth(1).unwrap();
            if used == "./" {
                continue;
            }
            // owner/name@<40 hex> # vX.Y.Z
            let (action, rest) = used.split_once('@').expect("a pinned ref");
            let (commit, tag) = rest.split_once(" # ").expect("the tag in a comment");
            assert!(action.contains('/'), "{line}");
            assert!(
                commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{workflow}: {line} is not pinned by commit"
            );
            assert!(tag.starts_with('v'), "{line}");
        }
    }
    // The release matrix: each target but x86_64 Linux on its own
    // platform's runner (Windows with MSVC); x86_64 Linux is the dist job's
    // own machine, where scripts/dist builds it and packs every target.
    let release = yaml(&root().join(".github/workflows/release.yml"));
    let matrix: Vec<(String, String)> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["target"].as_str().unwrap().to_string(),
                row["runner"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut targets: Vec<&str> = matrix.iter().map(|(target, _)| target.as_str()).collect();
    targets.push("x86_64-unknown-linux-gnu");
    targets.sort();
    let mut expected = RELEASE_TARGETS.to_vec();
    expected.push("x86_64-pc-windows-msvc");
    expected.sort();
    assert_eq!(targets, expected);
    for (target, runner) in &matrix {
        let native = match target.as_str() {
            "aarch64-unknown-linux-gnu" => "ubuntu-24.04-arm",
            "x86_64-apple-darwin" => "macos-15-intel",
            "aarch64-apple-darwin" => "macos-15",
            "x86_64-pc-windows-msvc" => "windows-2022",
            other => panic!("{other}"),
        };
        assert_eq!(runner, native, "{target}");
    }
    let build = release["jobs"]["build"]["steps"].as_array().unwrap();
    let runs: Vec<&str> = build
        .iter()
        .filter_map(|step| step["run"].as_str())
        .collect();
    // Each runner tests natively, then builds its target with the script.
    assert!(
        runs.iter()
            .any(|run| run.starts_with("cargo test --locked")),
        "{runs:?}"
    );
    assert!(
        runs.iter()
            .any(|run| run.contains("scripts/build-release --target \"${{ matrix.target }}\"")),
        "{runs:?}"
    );
    assert_eq!(release["jobs"]["dist"]["runs-on"], "ubuntu-24.04");
    assert_eq!(release["jobs"]["dist"]["needs"], "build");
    let dist_runs: Vec<&str> = release["jobs"]["dist"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|step| step["run"].as_str())
        .collect();
    assert!(
        dist_runs
            .iter()
            .any(|run| run.contains("scripts/dist --out release --from from")),
        "{dist_runs:?}"
    );
    let install = std::fs::read_to_string(root().join("install.sh")).unwrap();
    let homebrew = std::fs::read_to_string(root().join("packaging/homebrew/build")).unwrap();
    for target in RELEASE_TARGETS {
        assert!(install.contains(&format!("echo {target} ;;")), "{target}");
        assert!(homebrew.contains(target), "{target}");
    }
    // Publishing uses OIDC: no job holds a registry token.
    for job in ["npm", "pypi", "mcp-registry"] {
        assert_eq!(
            release["jobs"][job]["permissions"]["id-token"], "write",
            "{job}"
        );
    }
    let source = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(!source.contains("NPM_TOKEN") && !source.contains("PYPI"));
    assert!(source.contains("npm publish --provenance"));
    // The crates: checked by a dry run in the dist job, before anything is
    // published; published (with the one stored token) once the GitHub
    // release holds the archives the binary's binstall metadata points at,
    // the contract first, the binary's crate last (it depends on them all).
    const CRATES: &str = "--locked -p ask_user_core -p ask_user_platform -p ask_user_server -p ask_user_inbox -p ask_user";
    assert!(
        dist_runs
            .iter()
            .any(|run| run.contains(&format!("cargo publish --dry-run {CRATES}"))),
        "{dist_runs:?}"
    );
    let crates_io = &release["jobs"]["crates-io"];
    assert_eq!(crates_io["needs"], "github-release");
    assert_eq!(crates_io["environment"], "crates-io");
    let publish = crates_io["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|step| step["run"] == format!("cargo publish {CRATES}").as_str())
        .expect("a step runs cargo publish of both crates, the contract first");
    assert_eq!(
        publish["env"]["CARGO_REGISTRY_TOKEN"],
        "${{ secrets.CARGO_REGISTRY_TOKEN }}"
    );
    assert_eq!(source.matches("secrets.CARGO_REGISTRY_TOKEN").count(), 1);
    // CI runs what the project's CI runs.
    let ci = yaml(&root().join(".github/workflows/ci.yml"));
    let steps = ci["jobs"]["ci"]["steps"].as_array().unwrap();
    assert!(steps.iter().any(|step| step["run"] == "bash .ci/run"));
}
