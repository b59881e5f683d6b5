//! The PyPI channel (packaging/pypi/build, pyproject.toml): the wheel holds
//! the release binary under platform tags that tell the truth, real pip
//! installs it offline into a fresh venv where the official MCP Python SDK
//! drives it, uvx and pipx run it offline, and maturin reads pyproject.toml
//! to the same metadata the wheel carries.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::common::clients::{mcp_python, offline, require, runs, tests_dir};
use crate::common::dist::{Dist, dist};

/// What scripts/dist's archive holds as `ask_user`: the release binary
/// every channel ships.
pub fn release_binary(dist: &Dist) -> Vec<u8> {
    let top = format!("ask_user-{}-{}", dist.version, dist.target);
    let output = Command::new("tar")
        .arg("-xzOf")
        .arg(dist.archive())
        .arg(format!("{top}/ask_user"))
        .output()
        .unwrap();
    assert!(output.status.success(), "tar reads the archive");
    output.stdout
}

/// One zip entry as Python's zipfile reads it.
#[derive(Debug)]
pub struct ZipEntry {
    pub name: String,
    /// The Unix mode in the entry's external attributes.
    pub mode: u32,
    /// `YYYY-MM-DD HH:MM:SS`, the entry's DOS time.
    pub time: String,
}

/// Extracts `archive` (a zip: wheel, bundle) into `into` with Python's
/// zipfile; its entries in archive order.
pub fn unzip(archive: &Path, into: &Path) -> Vec<ZipEntry> {
    const SCRIPT: &str = r#"
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    archive.extractall(sys.argv[2])
    print(json.dumps([[i.filename, i.external_attr >> 16,
        "%04d-%02d-%02d %02d:%02d:%02d" % i.date_time] for i in archive.infolist()]))
"#;
    let output = Command::new("python3")
        .args(["-c", SCRIPT])
        .arg(archive)
        .arg(into)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "zipfile reads {}: {}",
        archive.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let entries: Vec<(String, u32, String)> = serde_json::from_slice(&output.stdout).unwrap();
    entries
        .into_iter()
        .map(|(name, mode, time)| ZipEntry { name, mode, time })
        .collect()
}

/// SOURCE_DATE_EPOCH of scripts/dist's runs as a zip entry's time (UTC).
pub fn source_date_epoch_time() -> String {
    let epoch = crate::common::dist::SOURCE_DATE_EPOCH;
    let output = Command::new("date")
        .args(["-u", "-d", &format!("@{epoch}"), "+%Y-%m-%d %H:%M:%S"])
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// The sha256 of `path` in hex (coreutils' sha256sum).
pub fn sha256_hex(path: &Path) -> String {
    let output = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()[..64].to_string()
}

/// RECORD's form of a digest: urlsafe base64 of the raw bytes, unpadded.
fn record_digest(hex: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// The platform tags the wheel of `target` must carry (packaging/pypi/build
/// says why): a static Linux binary runs on glibc and musl systems alike.
fn platform_tags(target: &str) -> Vec<String> {
    let arch = target.split('-').next().unwrap();
    assert!(
        target.contains("-linux-"),
        "this test knows the Linux wheels: {target}"
    );
    vec![
        format!("manylinux_2_17_{arch}"),
        format!("manylinux2014_{arch}"),
        format!("musllinux_1_1_{arch}"),
    ]
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn ok(output: Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what}: {}\n{}\n{}",
        output.status,
        text(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    text(&output)
}

/// The pinned PyPI tool `program` (packaging/requirements.txt), when it runs.
fn pinned_tool(program: &str) -> PathBuf {
    let found = runs(program, &["--version"]).then(|| PathBuf::from(program));
    require(
        found,
        &format!("{program} from PyPI (run .ci/setup-dist.sh)"),
    )
}

/// A folder for uv or pipx with nothing but the wheel in it, so that no
/// other artifact of scripts/dist could be taken for a distribution.
fn links_with_the_wheel(scratch: &Path) -> PathBuf {
    let wheel = dist().one(".whl");
    let links = scratch.join("links");
    std::fs::create_dir_all(&links).unwrap();
    std::fs::copy(&wheel, links.join(wheel.file_name().unwrap())).unwrap();
    links
}

/// `uvx` with a scratch cache, offline, never fetching a Python: only what
/// this machine has.
fn uvx(scratch: &Path) -> Command {
    pinned_tool("uv");
    let mut command = offline("uvx");
    command
        .env("UV_CACHE_DIR", scratch.join("uv-cache"))
        .env("UV_TOOL_DIR", scratch.join("uv-tools"))
        .env("UV_OFFLINE", "1")
        .env("UV_NO_INDEX", "1")
        .env("UV_PYTHON_DOWNLOADS", "never")
        .env("UV_NO_CONFIG", "1")
        .env_remove("VIRTUAL_ENV")
        .stdin(Stdio::null());
    command
}

pub fn pypi_wheel_holds_the_release_binary_under_truthful_tags() {
    let dist = dist();
    let wheel = dist.one(".whl");
    let v = &dist.version;
    let tags = platform_tags(&dist.target);
    assert_eq!(
        wheel.file_name().unwrap().to_string_lossy(),
        format!("ask_user-{v}-py3-none-{}.whl", tags.join(".")),
        "the distribution name normalised to ask_user, every tag in the name"
    );
    let unpacked = tempfile::tempdir().unwrap();
    let entries = unzip(&wheel, unpacked.path());
    let data = format!("ask_user-{v}.data/scripts");
    let info = format!("ask_user-{v}.dist-info");
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("{data}/ask-user"),
            format!("{data}/ask_user"),
            "ask_user/__init__.py".to_string(),
            "ask_user/_binary.py".to_string(),
            "ask_user/_run.py".to_string(),
            "ask_user/_types.py".to_string(),
            "ask_user/errors.py".to_string(),
            "ask_user/py.typed".to_string(),
            format!("{info}/METADATA"),
            format!("{info}/WHEEL"),
            format!("{info}/licenses/LICENSE"),
            format!("{info}/RECORD"),
        ],
        "the payload first (the binary, then the library), RECORD last, nothing else"
    );
    // The library's files are the source tree's, byte for byte.
    for entry in entries.iter().filter(|e| e.name.starts_with("ask_user/")) {
        assert!(
            std::fs::read(unpacked.path().join(&entry.name)).unwrap()
                == std::fs::read(dist.clone.join("packaging/pypi").join(&entry.name)).unwrap(),
            "{} is packaging/pypi's",
            entry.name
        );
    }
    let stamp = source_date_epoch_time();
    for entry in &entries {
        let executable = entry.name.starts_with(&data);
        let mode = if executable { 0o100755 } else { 0o100644 };
        assert_eq!(entry.mode, mode, "{}", entry.name);
        assert_eq!(entry.time, stamp, "SOURCE_DATE_EPOCH: {}", entry.name);
    }
    let read = |name: &str| std::fs::read(unpacked.path().join(name)).unwrap();
    assert!(
        read(&format!("{data}/ask_user")) == release_binary(dist),
        "the wheel's ask_user is the release binary, byte for byte"
    );

    let wheel_file = String::from_utf8(read(&format!("{info}/WHEEL"))).unwrap();
    let mut want = vec![
        "Wheel-Version: 1.0".to_string(),
        "Generator: ask_user packaging/pypi/build".to_string(),
        "Root-Is-Purelib: false".to_string(),
    ];
    want.extend(tags.iter().map(|tag| format!("Tag: py3-none-{tag}")));
    assert_eq!(wheel_file, want.join("\n") + "\n");

    let metadata = String::from_utf8(read(&format!("{info}/METADATA"))).unwrap();
    let (headers, description) = metadata.split_once("\n\n").unwrap();
    let headers: Vec<&str> = headers.lines().collect();
    for line in [
        "Metadata-Version: 2.4",
        "Name: ask-user",
        &format!("Version: {v}"),
        "License-Expression: MIT",
        "License-File: LICENSE",
        "Project-URL: Repository, https://github.com/ask-user/ask_user",
    ] {
        assert!(headers.contains(&line), "{line} in {headers:?}");
    }
    // The description is the PyPI README, with the registry's ownership line.
    let readme = std::fs::read_to_string(dist.clone.join("packaging/pypi/README.md")).unwrap();
    assert_eq!(description, format!("{readme}\n"));
    assert!(
        description
            .lines()
            .any(|l| l == "mcp-name: io.github.ask-user/ask_user"),
        "{description}"
    );

    // RECORD lists every other entry with its sha256 and size.
    let record = String::from_utf8(read(&format!("{info}/RECORD"))).unwrap();
    let mut lines: Vec<&str> = record.lines().collect();
    assert_eq!(lines.pop(), Some(format!("{info}/RECORD,,").as_str()));
    assert_eq!(lines.len(), entries.len() - 1);
    for (line, entry) in lines.iter().zip(&entries) {
        let path = unpacked.path().join(&entry.name);
        let size = std::fs::metadata(&path).unwrap().len();
        let digest = record_digest(&sha256_hex(&path));
        assert_eq!(*line, format!("{},sha256={digest},{size}", entry.name));
    }
}

pub fn pypi_pip_installs_the_wheel_offline_and_the_python_sdk_drives_it() {
    let dist = dist();
    let wheel = dist.one(".whl");
    let python = mcp_python();
    // Not under the temporary folder: setup refuses a binary there.
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let venv = scratch.path().join("venv");
    ok(
        Command::new("python3")
            .args(["-m", "venv", "--without-pip"])
            .arg(&venv)
            .output()
            .unwrap(),
        "python3 -m venv",
    );
    // This machine's pip installs into the fresh venv, with no index and no
    // network: the wheel alone.
    ok(
        offline("python3")
            .args(["-m", "pip", "--python"])
            .arg(venv.join("bin/python"))
            .args(["install", "--no-index", "--no-deps", "--quiet"])
            .arg("--disable-pip-version-check")
            .arg(&wheel)
            .output()
            .unwrap(),
        "pip install --no-index",
    );
    let installed = venv.join("bin/ask_user");
    assert!(
        std::fs::read(&installed).unwrap() == release_binary(dist),
        "pip put the release binary in the venv's bin"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&installed).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "executable: {mode:o}");
    for name in ["ask_user", "ask-user"] {
        let version = ok(
            Command::new(venv.join("bin").join(name))
                .arg("--version")
                .output()
                .unwrap(),
            name,
        );
        assert_eq!(version, format!("ask_user {}\n", dist.version), "{name}");
    }

    // The library: `import ask_user` finds the binary pip put beside the
    // venv's interpreter (no ASK_USER_BIN, no ask_user on PATH), and a
    // missing binary is its own error class (issue #49's "done when").
    let library = |script: &str, bin: Option<&Path>| {
        let mut command = Command::new(venv.join("bin/python"));
        command
            .args(["-c", script])
            .env("PATH", "/usr/bin:/bin")
            .env_remove("ASK_USER_BIN")
            .env_remove("PYTHONPATH")
            .current_dir(scratch.path())
            .stdin(Stdio::null());
        if let Some(bin) = bin {
            command.env("ASK_USER_BIN", bin);
        }
        ok(command.output().unwrap(), script)
    };
    assert_eq!(
        library(
            "import ask_user; print(ask_user.ask({'question':'Which?','options':['a','b']}, reply=['2'])['answers'][0]['values'])",
            None,
        ),
        "['b']\n"
    );
    assert_eq!(
        library(
            "import ask_user, os; print(os.path.realpath(ask_user.find_binary()))",
            None
        ),
        format!("{}\n", installed.canonicalize().unwrap().display())
    );
    assert_eq!(
        library(
            "import ask_user\ntry:\n    ask_user.ask({'question':'Which?','options':['a','b']}, reply=['2'])\nexcept ask_user.BinaryNotFound as e:\n    print(type(e).__name__, e.code)",
            Some(scratch.path().join("no-such-binary").as_path()),
        ),
        "BinaryNotFound BINARY_NOT_FOUND\n"
    );
    let typed = venv.join(format!(
        "lib/python{}/site-packages/ask_user/py.typed",
        library(
            "import sys; print('%d.%d' % sys.version_info[:2], end='')",
            None
        )
    ));
    assert!(typed.is_file(), "py.typed installed: {}", typed.display());

    // The official MCP Python SDK starts each command as a host would and
    // has one question answered through a form.
    for name in ["ask_user", "ask-user"] {
        let scenario = json!({
            "binary": venv.join("bin").join(name),
            "server_args": ["mcp"],
            "mode": "auto",
            "calls": [{
                "arguments": {"question": "Which database?", "options": ["PostgreSQL", "SQLite"]},
                "reply": {"action": "accept", "content": {"q1": "2"}},
            }],
        });
        let output = crate::common::process::output_with_stdin(
            Command::new(&python)
                .arg(tests_dir("mcp").join("py_client.py"))
                .stderr(Stdio::piped()),
            scenario.to_string().as_bytes(),
        )
        .unwrap();
        let out: Value = serde_json::from_str(&ok(output, "py_client")).unwrap();
        assert_eq!(out["protocol_version"], "2026-07-28", "{name}: {out}");
        assert_eq!(out["tools"][0]["name"], "ask_user", "{name}: {out}");
        assert_eq!(
            out["results"][0]["structured"]["answers"],
            json!([{"questionId": "q1", "values": ["SQLite"], "optionIds": ["2"]}]),
            "{name}: {out}"
        );
    }

    // From a pip install, setup writes the installed binary's own path.
    let home = scratch.path().join("home");
    let setup = |args: &[&str]| {
        Command::new(&installed)
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("xdg"))
            .env("TMPDIR", home.join("tmp"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    ok(setup(&["setup", "claude-code"]), "setup claude-code");
    let line: Value =
        serde_json::from_str(&ok(setup(&["setup", "--list", "claude-code"]), "--list")).unwrap();
    assert_eq!(line["configured"], true, "{line}");
    assert_eq!(
        line["command"],
        json!(installed.canonicalize().unwrap()),
        "{line}"
    );
    assert_eq!(line["args"], json!(["mcp"]), "{line}");
}

pub fn pypi_uvx_runs_the_wheel_offline_and_setup_writes_the_pinned_uvx_form() {
    let dist = dist();
    let scratch = tempfile::tempdir().unwrap();
    let wheel = dist.one(".whl");
    let version = format!("ask_user {}\n", dist.version);
    // The README's form, straight from the wheel file.
    let from_file = ok(
        uvx(scratch.path())
            .arg("--from")
            .arg(&wheel)
            .args(["ask_user", "--version"])
            .output()
            .unwrap(),
        "uvx --from WHEEL ask_user",
    );
    assert_eq!(from_file, version);
    // The package's name as the command, as `uvx ask-user` runs it.
    let links = links_with_the_wheel(scratch.path());
    let pinned = format!("ask-user=={}", dist.version);
    let by_name = ok(
        uvx(scratch.path())
            .arg("--find-links")
            .arg(&links)
            .args([pinned.as_str(), "--version"])
            .output()
            .unwrap(),
        "uvx ask-user==VERSION",
    );
    assert_eq!(by_name, version);

    // Run from uv's cache, setup writes the pinned uvx command, never the
    // cache's path.
    let home = scratch.path().join("home");
    let setup = |args: &[&str]| {
        let mut command = uvx(scratch.path());
        command
            .arg("--find-links")
            .arg(&links)
            .args(["--from", pinned.as_str(), "ask_user"])
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("xdg"))
            .env("TMPDIR", home.join("tmp"))
            .env_remove("CLAUDE_CONFIG_DIR");
        command.output().unwrap()
    };
    ok(setup(&["setup", "claude-code"]), "setup through uvx");
    let line: Value =
        serde_json::from_str(&ok(setup(&["setup", "--list", "claude-code"]), "--list")).unwrap();
    assert_eq!(line["configured"], true, "{line}");
    assert_eq!(line["command"], "uvx", "{line}");
    assert_eq!(
        line["args"],
        json!(["--from", pinned, "ask_user", "mcp"]),
        "{line}"
    );
}

/// The registry's PyPI entry as MCP hosts build the command from it (VS Code:
/// runtimeHint, runtimeArguments, `identifier==version`, packageArguments)
/// starts the server: uvx runs the wheel's `ask-user`.
pub fn registry_pypi_entrys_uvx_command_serves_mcp() {
    let dist = dist();
    let server: Value =
        serde_json::from_slice(&std::fs::read(dist.out.join("server.json")).unwrap()).unwrap();
    let package = server["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["registryType"] == "pypi")
        .expect("a PyPI entry");
    assert_eq!(package["runtimeHint"], "uvx");
    let values = |key: &str| -> Vec<String> {
        package[key]
            .as_array()
            .map(|args| {
                args.iter()
                    .map(|a| a["value"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut args = values("runtimeArguments");
    args.push(format!(
        "{}=={}",
        package["identifier"].as_str().unwrap(),
        package["version"].as_str().unwrap()
    ));
    args.extend(values("packageArguments"));
    assert_eq!(args, [format!("ask-user=={}", dist.version), "mcp".into()]);

    let scratch = tempfile::tempdir().unwrap();
    let links = links_with_the_wheel(scratch.path());
    let mut command = uvx(scratch.path());
    command.env("UV_FIND_LINKS", &links).args(&args);
    let mut server = crate::common::mcp_raw::Raw::spawn(command);
    let reply = server.initialize("2025-11-25", json!({}));
    assert_eq!(reply["result"]["serverInfo"]["version"], dist.version);
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tools = server.next_within(std::time::Duration::from_secs(30));
    assert_eq!(tools["result"]["tools"][0]["name"], "ask_user", "{tools}");
}

pub fn pypi_pipx_runs_the_wheel_offline() {
    let dist = dist();
    pinned_tool("pipx");
    let scratch = tempfile::tempdir().unwrap();
    let wheel = dist.one(".whl");
    for name in ["ask_user", "ask-user"] {
        let output = offline("pipx")
            .args(["run", "--spec"])
            .arg(&wheel)
            .args([name, "--version"])
            .env("PIPX_HOME", scratch.path().join("pipx"))
            .env("PIPX_BIN_DIR", scratch.path().join("bin"))
            .env("PIP_NO_INDEX", "1")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env("UV_CACHE_DIR", scratch.path().join("uv-cache"))
            .env("UV_OFFLINE", "1")
            .env("UV_NO_INDEX", "1")
            .env("UV_PYTHON_DOWNLOADS", "never")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            ok(output, &format!("pipx run --spec WHEEL {name}")),
            format!("ask_user {}\n", dist.version)
        );
    }
}

/// maturin (the build backend pyproject.toml names) accepts the project and
/// writes the very metadata the release wheel carries.
pub fn pypi_maturin_reads_pyproject_to_the_wheels_metadata() {
    let dist = dist();
    let maturin = pinned_tool("maturin");
    let scratch = tempfile::tempdir().unwrap();
    // maturin runs `cargo metadata`, which wants every package of the lock,
    // for every target (a build fetches only the host's): fetched first,
    // online, so that maturin itself runs offline.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    ok(
        Command::new(cargo)
            .args(["fetch", "--locked", "--quiet"])
            .current_dir(&dist.clone)
            .stdin(Stdio::null())
            .output()
            .unwrap(),
        "cargo fetch",
    );
    ok(
        offline(&maturin)
            .args(["sdist", "--out"])
            .arg(scratch.path())
            .current_dir(&dist.clone)
            .env("CARGO_NET_OFFLINE", "true")
            .stdin(Stdio::null())
            .output()
            .unwrap(),
        "maturin sdist",
    );
    let sdist = scratch
        .path()
        .join(format!("ask_user-{}.tar.gz", dist.version));
    let top = format!("ask_user-{}", dist.version);
    let listing = ok(
        Command::new("tar")
            .arg("-tzf")
            .arg(&sdist)
            .output()
            .unwrap(),
        "tar -tzf",
    );
    for file in [
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "packaging/pypi/README.md",
        "packaging/pypi/ask_user.data/scripts/ask-user",
        "packaging/pypi/ask_user/__init__.py",
        "packaging/pypi/ask_user/py.typed",
        ".cargo/config.toml",
        "schemas/answer.json",
    ] {
        assert!(
            listing.lines().any(|l| l == format!("{top}/{file}")),
            "{file} in the sdist"
        );
    }
    // The crate's files (Cargo.toml's include) and those pyproject.toml
    // adds: no tests, test clients or other channels' packaging.
    for line in listing.lines() {
        for unwanted in ["/tests/", "node_modules", "/packaging/npm/", "/fixtures/"] {
            assert!(!line.contains(unwanted), "{line} in the sdist");
        }
    }
    let pkg_info = Command::new("tar")
        .arg("-xzOf")
        .arg(&sdist)
        .arg(format!("{top}/PKG-INFO"))
        .output()
        .unwrap()
        .stdout;
    let unpacked = tempfile::tempdir().unwrap();
    unzip(&dist.one(".whl"), unpacked.path());
    let metadata = std::fs::read(
        unpacked
            .path()
            .join(format!("ask_user-{}.dist-info/METADATA", dist.version)),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(metadata).unwrap(),
        String::from_utf8(pkg_info).unwrap(),
        "the wheel's METADATA is what maturin writes from pyproject.toml"
    );
}

/// packaging/pypi/build refuses, with one line saying why, what it cannot
/// package truthfully, and writes nothing.
pub fn pypi_build_refuses_what_it_cannot_package() {
    let dist = dist();
    let build = dist.clone.join("packaging/pypi/build");
    let scratch = tempfile::tempdir().unwrap();
    let binary = scratch.path().join("ask_user");
    std::fs::write(&binary, release_binary(dist)).unwrap();
    let run = |binary: &Path, version: &str, target: &str| {
        let out = tempfile::tempdir().unwrap();
        let output = Command::new(&build)
            .arg(out.path())
            .arg(binary)
            .args([version, target])
            .output()
            .unwrap();
        assert!(
            crate::common::dist::walk(out.path()).is_empty(),
            "nothing written"
        );
        (
            output.status.code(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let v = dist.version.as_str();
    let (code, stderr) = run(&binary, v, "riscv64gc-unknown-linux-gnu");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.starts_with(
            "packaging/pypi/build: no wheel platform tag for riscv64gc-unknown-linux-gnu; known: "
        ),
        "{stderr}"
    );
    // The debug build of the tests is dynamically linked: Linux tags for it
    // would claim what it is not.
    let (code, stderr) = run(Path::new(crate::common::BIN), v, &dist.target);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is dynamically linked"), "{stderr}");
    let (code, stderr) = run(&binary, "9.9.9", &dist.target);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "packaging/pypi/build: pyproject.toml has version {v}, not 9.9.9: make it Cargo.toml's\n"
        )
    );
    let (code, stderr) = run(&scratch.path().join("missing"), v, &dist.target);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("cannot read BINARY"), "{stderr}");
}
