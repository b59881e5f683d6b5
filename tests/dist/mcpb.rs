//! The MCP bundle (packaging/mcpb) checked and unpacked with the official
//! CLI, @anthropic-ai/mcpb, and started as a host starts it; and the MCP
//! Registry entry (server.json, packaging/registry) validated against the
//! registry's schema, kept in tests/dist/registry-schema, with
//! check-jsonschema, its names and versions the same as every channel's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::common::clients::{require, runs};
use crate::common::dist::{cargo_version, dist};
use crate::common::mcp_raw::Raw;
use crate::pypi::{release_binary, sha256_hex, source_date_epoch_time, unzip};

/// The MCP Registry name every channel claims.
const MCP_NAME: &str = "io.github.ask-user/ask_user";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn ok(output: Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what}: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The pinned `mcpb` CLI that .ci/setup-dist.sh installs in packaging/.
fn mcpb() -> Command {
    let program = root().join("packaging/node_modules/.bin/mcpb");
    let found = (program.is_file() && runs(&program, &["--version"])).then_some(program);
    let mut command = Command::new(require(
        found,
        "the mcpb CLI, @anthropic-ai/mcpb (run .ci/setup-dist.sh)",
    ));
    command.stdin(Stdio::null());
    command
}

/// The pinned check-jsonschema (packaging/requirements.txt).
fn check_jsonschema() -> Command {
    let found = runs("check-jsonschema", &["--version"]).then_some("check-jsonschema");
    let mut command = Command::new(require(
        found,
        "check-jsonschema from PyPI (run .ci/setup-dist.sh)",
    ));
    command.arg("--schemafile").arg(kept_schema());
    command
}

fn kept_schema() -> PathBuf {
    root().join("tests/dist/registry-schema/server.schema.json")
}

/// The bundle's name for this machine's target.
fn bundle_name(version: &str, target: &str) -> String {
    let cpu = match target.split('-').next().unwrap() {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => panic!("no bundle CPU for {other}"),
    };
    assert!(
        target.contains("-linux-"),
        "this test knows Linux: {target}"
    );
    format!("ask_user-{version}-linux-{cpu}.mcpb")
}

pub fn mcpb_manifest_passes_mcpb_validate() {
    let manifest = root().join("packaging/mcpb/manifest.json");
    let stdout = ok(
        mcpb().arg("validate").arg(&manifest).output().unwrap(),
        "mcpb validate",
    );
    assert!(
        stdout.contains("Manifest schema validation passes!"),
        "{stdout}"
    );
    // The same CLI refuses a manifest that is wrong, naming each field.
    let scratch = tempfile::tempdir().unwrap();
    let mut broken = json_file(&manifest);
    broken["server"]["type"] = json!("docker");
    broken.as_object_mut().unwrap().remove("author");
    let path = scratch.path().join("manifest.json");
    std::fs::write(&path, broken.to_string()).unwrap();
    let output = mcpb().arg("validate").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("author: Required"), "{said}");
    assert!(said.contains("server.type: Invalid enum value"), "{said}");
}

pub fn mcpb_bundle_unpacks_with_mcpb_and_serves_mcp_as_a_host_starts_it() {
    let dist = dist();
    let bundle = dist.one(".mcpb");
    assert_eq!(
        bundle.file_name().unwrap().to_string_lossy(),
        bundle_name(&dist.version, &dist.target)
    );
    let info = ok(mcpb().arg("info").arg(&bundle).output().unwrap(), "info");
    assert!(
        info.contains(&format!(
            "File: {}",
            bundle_name(&dist.version, &dist.target)
        )),
        "{info}"
    );

    // The zip: the manifest and the binary, sorted, stamped with
    // SOURCE_DATE_EPOCH, the binary executable.
    let listed = tempfile::tempdir().unwrap();
    let entries = unzip(&bundle, listed.path());
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["manifest.json", "server/ask_user"]);
    let stamp = source_date_epoch_time();
    assert!(entries.iter().all(|e| e.time == stamp), "{entries:?}");
    assert_eq!(entries[1].mode & 0o777, 0o755, "{entries:?}");

    // Unpacked by the official CLI, as hosts built on it do.
    let scratch = tempfile::tempdir().unwrap();
    let unpacked = scratch.path().join("ask-user");
    ok(
        mcpb()
            .arg("unpack")
            .arg(&bundle)
            .arg(&unpacked)
            .output()
            .unwrap(),
        "mcpb unpack",
    );
    let binary = unpacked.join("server/ask_user");
    assert!(
        std::fs::read(&binary).unwrap() == release_binary(dist),
        "the bundle's server is the release binary"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&binary).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755, "executable after unpack: {mode:o}");

    let manifest = json_file(&unpacked.join("manifest.json"));
    assert_eq!(manifest["version"], json!(cargo_version()));
    assert_eq!(manifest["manifest_version"], "0.3");
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(manifest["server"]["entry_point"], "server/ask_user");
    assert_eq!(manifest["compatibility"]["platforms"], json!(["linux"]));
    let listed_tools: Vec<&Value> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(listed_tools, [&json!("ask_user")]);

    // The command a host runs: ${__dirname} is the unpacked folder, each
    // ${user_config.KEY} the user's value (here the defaults, as strings).
    let config = &manifest["server"]["mcp_config"];
    let mut variables = vec![("${__dirname}".to_string(), unpacked.display().to_string())];
    for (key, option) in manifest["user_config"].as_object().unwrap() {
        let default = match &option["default"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        variables.push((format!("${{user_config.{key}}}"), default));
    }
    let substitute = |text: &str| {
        variables
            .iter()
            .fold(text.to_string(), |text, (name, value)| {
                text.replace(name, value)
            })
    };
    let command = substitute(config["command"].as_str().unwrap());
    let args: Vec<String> = config["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| substitute(a.as_str().unwrap()))
        .collect();
    assert_eq!(PathBuf::from(&command), binary);
    assert_eq!(
        args,
        [
            "mcp",
            "--no-elicitation",
            "--timeout",
            "300",
            "--fallback",
            "auto",
            "--open",
            "--wait",
            "45"
        ],
        "every placeholder filled"
    );
    let mut host = Command::new(&command);
    host.args(&args);
    let mut server = Raw::spawn(host);
    let reply = server.initialize("2025-11-25", json!({}));
    assert_eq!(reply["result"]["serverInfo"]["name"], "ask_user");
    assert_eq!(reply["result"]["serverInfo"]["version"], dist.version);
    // --fallback auto (as web) sends the page's address as a log notice:
    // the user_config value reached the server.
    assert!(
        reply["result"]["capabilities"].get("logging").is_some(),
        "{reply}"
    );
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tools = server.next();
    assert_eq!(tools["id"], 1);
    let served: Vec<&Value> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(served, listed_tools, "the manifest lists what it serves");
}

/// The user_config ranges are the ones `ask_user mcp` accepts, and the
/// fallback's description names only values it accepts.
pub fn mcpb_user_config_matches_what_mcp_accepts() {
    let manifest = json_file(&root().join("packaging/mcpb/manifest.json"));
    let timeout = &manifest["user_config"]["timeout"];
    let run = |args: &[&str]| {
        Command::new(crate::common::BIN)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    // Out of range: refused before serving (clap's usage error).
    let above = (timeout["max"].as_f64().unwrap() + 1.0).to_string();
    let output = run(&["mcp", "--timeout", &above]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("out of range"),
        "{output:?}"
    );
    assert_eq!(timeout["min"], 0, "0: no limit");
    let help = String::from_utf8(run(&["mcp", "--help"]).stdout).unwrap();
    let fallback = manifest["user_config"]["fallback"]["description"]
        .as_str()
        .unwrap();
    for value in ["auto", "web", "inbox", "prompt", "error"] {
        assert!(fallback.contains(value), "{fallback}");
        assert!(help.contains(&format!("- {value}:")), "{value} in --help");
    }
    let default = manifest["user_config"]["fallback"]["default"]
        .as_str()
        .unwrap();
    assert!(help.contains(&format!("- {default}:")), "{default}");
    // The wait: the range `mcp --wait` takes, and its default under Claude
    // Desktop's own limit on a call (about 60 s).
    let wait = &manifest["user_config"]["wait"];
    for outside in [
        (wait["min"].as_f64().unwrap() - 1.0).to_string(),
        (wait["max"].as_f64().unwrap() + 1.0).to_string(),
    ] {
        let output = run(&["mcp", "--wait", &outside]);
        assert_eq!(output.status.code(), Some(2), "--wait {outside}");
    }
    let output = run(&["mcp", "--wait", &wait["max"].to_string()]);
    assert_ne!(output.status.code(), Some(2), "--wait at its max");
    assert!(wait["default"].as_f64().unwrap() < 60.0, "{wait}");
}

/// packaging/mcpb/build refuses a target it has no bundle platform for, and
/// a version that is not the manifest's, writing nothing.
pub fn mcpb_build_refuses_an_unknown_target_or_version() {
    let dist = dist();
    let run = |version: &str, target: &str| {
        let out = tempfile::tempdir().unwrap();
        let output = Command::new(dist.clone.join("packaging/mcpb/build"))
            .arg(out.path())
            .arg(crate::common::BIN)
            .args([version, target])
            .output()
            .unwrap();
        assert!(crate::common::dist::walk(out.path()).is_empty());
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&dist.version, "riscv64gc-unknown-linux-gnu");
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "mcpb/build: no MCP bundle platform for riscv64gc-unknown-linux-gnu \
         (Linux, macOS or Windows on x86_64 or aarch64)\n"
    );
    let (code, stderr) = run("9.9.9", &dist.target);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "mcpb/build: packaging/mcpb/manifest.json has version {}, not 9.9.9: \
             make it Cargo.toml's\n",
            dist.version
        )
    );
}

pub fn registry_server_json_validates_against_the_kept_schema() {
    let dist = dist();
    // The kept copy is the one SOURCE.md names, unchanged.
    let source =
        std::fs::read_to_string(root().join("tests/dist/registry-schema/SOURCE.md")).unwrap();
    let digest = sha256_hex(&kept_schema());
    assert!(
        source.contains(&format!("`{digest}`")),
        "{digest} in SOURCE.md"
    );
    let schema = json_file(&kept_schema());
    for file in [dist.out.join("server.json"), root().join("server.json")] {
        let server = json_file(&file);
        assert_eq!(server["$schema"], schema["$id"], "{}", file.display());
        let stdout = ok(
            check_jsonschema().arg(&file).output().unwrap(),
            "check-jsonschema",
        );
        assert!(stdout.contains("ok -- validation done"), "{stdout}");
    }
}

pub fn registry_check_jsonschema_refuses_a_bad_entry() {
    let dist = dist();
    let good = json_file(&dist.out.join("server.json"));
    let scratch = tempfile::tempdir().unwrap();
    type Breaks = fn(&mut Value);
    let cases: [(&str, Breaks); 4] = [
        ("no namespace in the name", |s| {
            s["name"] = json!("ask_user")
        }),
        ("the version latest", |s| {
            s["packages"][0]["version"] = json!("latest")
        }),
        ("a description over 100 characters", |s| {
            s["description"] = json!("x".repeat(101))
        }),
        ("a bundle digest that is not sha256", |s| {
            let last = s["packages"].as_array().unwrap().len() - 1;
            s["packages"][last]["fileSha256"] = json!("not-a-digest")
        }),
    ];
    for (what, break_it) in cases {
        let mut server = good.clone();
        break_it(&mut server);
        let file = scratch.path().join("server.json");
        std::fs::write(&file, server.to_string()).unwrap();
        let output = check_jsonschema().arg(&file).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{what}");
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(said.contains("Schema validation errors"), "{what}: {said}");
    }
}

pub fn registry_names_and_versions_match_every_channel() {
    let dist = dist();
    let version = cargo_version();
    let server = json_file(&dist.out.join("server.json"));
    assert_eq!(server["name"], MCP_NAME);
    assert_eq!(server["version"], json!(version));
    assert_eq!(
        server["repository"]["url"],
        "https://github.com/ask-user/ask_user"
    );
    let packages = server["packages"].as_array().unwrap();
    for package in packages {
        assert_eq!(package["version"], json!(version), "{package}");
        assert_eq!(package["transport"], json!({"type": "stdio"}), "{package}");
    }
    let kinds: Vec<&str> = packages
        .iter()
        .map(|p| p["registryType"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["npm", "pypi", "mcpb"],
        "one bundle here: this target's"
    );

    // npm: the package's name, and its mcpName claims the server.
    let npm = json_file(&root().join("packaging/npm/ask-user/package.json"));
    assert_eq!(packages[0]["identifier"], npm["name"]);
    assert_eq!(npm["mcpName"], MCP_NAME);
    assert_eq!(packages[0]["runtimeHint"], "npx");
    assert_eq!(
        packages[0]["packageArguments"],
        json!([{"type": "positional", "value": "mcp"}])
    );

    // PyPI: the wheel's name, and its description's mcp-name line.
    let unpacked = tempfile::tempdir().unwrap();
    unzip(&dist.one(".whl"), unpacked.path());
    let metadata = std::fs::read_to_string(
        unpacked
            .path()
            .join(format!("ask_user-{version}.dist-info/METADATA")),
    )
    .unwrap();
    assert!(metadata.contains("\nName: ask-user\n"), "{metadata}");
    assert!(metadata.contains(&format!("\nVersion: {version}\n")));
    assert_eq!(packages[1]["identifier"], "ask-user");
    let token: Vec<&str> = metadata
        .lines()
        .filter_map(|l| l.strip_prefix("mcp-name: "))
        .collect();
    assert_eq!(token, [MCP_NAME]);
    // The README (the crate's description) carries it as visible text.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("mcp-name: {MCP_NAME}")),
        "README.md names the server"
    );

    // The bundle: its release download URL and the sha256 of the file here,
    // the one SHA256SUMS lists.
    let bundle = dist.one(".mcpb");
    let name = bundle.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        packages[2]["identifier"],
        format!("https://github.com/ask-user/ask_user/releases/download/v{version}/{name}")
    );
    let digest = sha256_hex(&bundle);
    assert_eq!(packages[2]["fileSha256"], json!(digest));
    let sums = std::fs::read_to_string(dist.out.join("SHA256SUMS")).unwrap();
    assert!(
        sums.lines().any(|l| l == format!("{digest}  {name}")),
        "{sums}"
    );
    // The repository's copy differs only there: the registry build fills it.
    let mut checked_in = json_file(&root().join("server.json"));
    checked_in["packages"][2]["fileSha256"] = json!(digest);
    assert_eq!(checked_in, server);
}

/// packaging/registry/build needs the bundle's checksum, and refuses a
/// bundle that is not the one SHA256SUMS lists.
pub fn registry_build_refuses_missing_or_mismatched_checksums() {
    let dist = dist();
    let build = dist.clone.join("packaging/registry/build");
    let run = |out: &Path| {
        let output = Command::new(&build)
            .arg(out)
            .arg(crate::common::BIN)
            .args([dist.version.as_str(), dist.target.as_str()])
            .output()
            .unwrap();
        assert!(!out.join("server.json").exists(), "nothing written");
        (
            output.status.code(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let out = tempfile::tempdir().unwrap();
    let (code, stderr) = run(out.path());
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "registry/build: {}/SHA256SUMS is missing (scripts/dist writes it before this step)\n",
            out.path().display()
        )
    );
    std::fs::write(out.path().join("SHA256SUMS"), "").unwrap();
    let (code, stderr) = run(out.path());
    assert_eq!(code, Some(1));
    assert!(stderr.contains("lists no ask_user-"), "{stderr}");
    // A bundle whose bytes are not the ones listed.
    let bundle = dist.one(".mcpb");
    let name = bundle.file_name().unwrap();
    std::fs::write(out.path().join(name), b"tampered").unwrap();
    let sums = std::fs::read_to_string(dist.out.join("SHA256SUMS")).unwrap();
    std::fs::write(out.path().join("SHA256SUMS"), sums).unwrap();
    let (code, stderr) = run(out.path());
    assert_eq!(code, Some(1));
    assert!(stderr.contains("but SHA256SUMS lists"), "{stderr}");
}
