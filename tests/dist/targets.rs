//! scripts/dist over several targets: every binary that `scripts/build-release
//! --target TARGET` left in the `--from` folder is packed as its own archive
//! (a .zip for Windows), npm platform package, wheel and MCP bundle, next to
//! this machine's, with one SHA256SUMS, formula and registry entry over all.
//!
//! CI runs these tests before any cross build exists, so the foreign inputs
//! here are FAKE binaries: a few header bytes of the right format and CPU
//! (what scripts/dist checks) and a line saying what they are. They test the
//! packing layout only; the real cross builds are built and run by .ci/cross.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

use crate::common::dist::{SOURCE_DATE_EPOCH, dist, walk};
use crate::pypi::{sha256_hex, source_date_epoch_time, unzip};

/// What every fake binary says after its header.
const FAKE: &[u8] =
    b"\nFAKE ask_user binary for tests/dist/targets.rs: packing layout only, not a program\n";

/// The foreign targets, their file names and npm / MCPB platforms and wheel tags.
const FOREIGN: [(&str, &str, &str, &str); 4] = [
    (
        "aarch64-unknown-linux-gnu",
        "ask_user",
        "linux-arm64",
        "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    ),
    (
        "x86_64-pc-windows-gnu",
        "ask_user.exe",
        "win32-x64",
        "win_amd64",
    ),
    (
        "x86_64-apple-darwin",
        "ask_user",
        "darwin-x64",
        "macosx_10_12_x86_64",
    ),
    (
        "aarch64-apple-darwin",
        "ask_user",
        "darwin-arm64",
        "macosx_11_0_arm64",
    ),
];

/// [`FOREIGN`] but this machine's own target (built, not faked).
fn foreign() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    FOREIGN
        .into_iter()
        .filter(|(target, ..)| *target != dist().target)
        .collect()
}

/// A fake executable of `target`'s format: the bytes scripts/dist (and the
/// wheel's static-ELF check) read, then [`FAKE`].
fn fake_binary(target: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    match target {
        "aarch64-unknown-linux-gnu" => {
            // ELF64 little-endian header, EM_AARCH64, no program headers.
            bytes.extend_from_slice(b"\x7fELF\x02\x01\x01");
            bytes.resize(16, 0);
            bytes.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
            bytes.extend_from_slice(&183u16.to_le_bytes()); // EM_AARCH64
            bytes.resize(64, 0);
        }
        "x86_64-pc-windows-gnu" => {
            // DOS stub pointing at a PE header for AMD64.
            bytes.extend_from_slice(b"MZ");
            bytes.resize(60, 0);
            bytes.extend_from_slice(&64u32.to_le_bytes());
            bytes.extend_from_slice(b"PE\0\0");
            bytes.extend_from_slice(&0x8664u16.to_le_bytes());
            bytes.resize(88, 0);
        }
        "x86_64-apple-darwin" | "aarch64-apple-darwin" => {
            // Mach-O 64 magic and the CPU type.
            let cpu: u32 = if target.starts_with("x86_64") {
                0x0100_0007
            } else {
                0x0100_000C
            };
            bytes.extend_from_slice(&0xFEED_FACFu32.to_le_bytes());
            bytes.extend_from_slice(&cpu.to_le_bytes());
            bytes.resize(32, 0);
        }
        other => panic!("no fake binary for {other}"),
    }
    bytes.extend_from_slice(FAKE);
    bytes
}

/// The clone's scripts/dist with `--out OUT --from FROM`, as
/// tests/common/dist.rs runs it (same SOURCE_DATE_EPOCH and build folder).
fn run_dist(out: &Path, from: &Path) -> Output {
    let dist = dist();
    let target_dir = dist.clone.parent().unwrap().join("target");
    Command::new(dist.clone.join("scripts/dist"))
        .arg("--out")
        .arg(out)
        .arg("--from")
        .arg(from)
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .env("CARGO_TARGET_DIR", target_dir)
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

struct Packed {
    _scratch: tempfile::TempDir,
    out: PathBuf,
}

/// scripts/dist over this machine's binary and the four fake foreign ones,
/// run once per test process.
fn packed() -> &'static Packed {
    static PACKED: OnceLock<Packed> = OnceLock::new();
    PACKED.get_or_init(|| {
        let scratch = tempfile::tempdir().unwrap();
        let from = scratch.path().join("from");
        for (target, exe, _, _) in foreign() {
            std::fs::create_dir_all(from.join(target)).unwrap();
            std::fs::write(from.join(target).join(exe), fake_binary(target)).unwrap();
        }
        // This machine's own target folder is ignored: its binary is the one
        // scripts/dist builds.
        let host = &dist().target;
        std::fs::create_dir_all(from.join(host)).unwrap();
        std::fs::write(from.join(host).join("ask_user"), b"stale").unwrap();
        let out = scratch.path().join("out");
        let output = run_dist(&out, &from);
        assert!(
            output.status.success(),
            "scripts/dist --from: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        Packed {
            _scratch: scratch,
            out,
        }
    })
}

fn names(dir: &Path) -> Vec<String> {
    walk(dir)
        .iter()
        .map(|f| f.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

/// The artifacts of every target, this machine's byte-identical to the
/// host-only run's, each foreign binary packed unchanged in each channel.
pub fn dist_packs_each_built_target_fake_binaries_for_the_layout() {
    let dist = dist();
    let packed = packed();
    let v = &dist.version;
    let host = &dist.target;
    let host_platform = match host.as_str() {
        "x86_64-unknown-linux-gnu" => "linux-x64",
        "aarch64-unknown-linux-gnu" => "linux-arm64",
        other => panic!("this test knows Linux hosts, not {other}"),
    };
    let mut want: Vec<String> = vec![
        "SHA256SUMS".into(),
        "ask_user.rb".into(),
        "install.sh".into(),
        "server.json".into(),
        format!("npm/ask-user-{v}.tgz"),
    ];
    // This machine's artifacts: the names of the host-only run, and the
    // same bytes (SHA256SUMS, the formula and server.json list more here).
    let listed_in_both = |name: &str| !["SHA256SUMS", "ask_user.rb", "server.json"].contains(&name);
    for name in names(&dist.out) {
        if listed_in_both(&name) {
            assert!(
                std::fs::read(dist.out.join(&name)).unwrap()
                    == std::fs::read(packed.out.join(&name)).unwrap(),
                "{name} differs from the host-only run's"
            );
        }
        if !want.contains(&name) {
            want.push(name);
        }
    }
    assert!(want.contains(&format!("npm/ask-user-{host_platform}-{v}.tgz")));
    for (target, _, platform, tags) in foreign() {
        let archive = if target.contains("-windows-") {
            "zip"
        } else {
            "tar.gz"
        };
        want.push(format!("ask_user-{v}-{target}.{archive}"));
        want.push(format!("npm/ask-user-{platform}-{v}.tgz"));
        want.push(format!("ask_user-{v}-py3-none-{tags}.whl"));
        want.push(format!("ask_user-{v}-{platform}.mcpb"));
    }
    want.sort();
    let got = names(&packed.out);
    assert_eq!(
        got, want,
        "one archive, npm package, wheel and bundle per target"
    );
}

/// Each foreign binary is in its archive, npm package, wheel and bundle
/// byte for byte, under its platform's name (ask_user.exe on Windows), the
/// archive beside the same docs as this machine's.
pub fn dist_puts_each_fake_binary_unchanged_under_its_platforms_name() {
    let dist = dist();
    let packed = packed();
    let v = &dist.version;
    let scratch = tempfile::tempdir().unwrap();
    // The host archive's docs, the model of every archive's.
    let host_top = format!("ask_user-{v}-{}", dist.target);
    let host_dir = scratch.path().join("host");
    std::fs::create_dir_all(&host_dir).unwrap();
    tar_x(&dist.archive(), &host_dir);
    let docs: Vec<String> = names(&host_dir.join(&host_top))
        .into_iter()
        .filter(|name| name != "ask_user")
        .collect();
    assert!(docs.iter().any(|n| n.starts_with("man/")), "{docs:?}");
    for (target, exe, platform, tags) in foreign() {
        let fake = fake_binary(target);
        let dir = scratch.path().join(target);
        std::fs::create_dir_all(&dir).unwrap();
        let top = format!("ask_user-{v}-{target}");
        // The archive: a zip on Windows (stamped with SOURCE_DATE_EPOCH,
        // the binary executable), a tar.gz elsewhere.
        if target.contains("-windows-") {
            let entries = unzip(&packed.out.join(format!("{top}.zip")), &dir);
            let mut listed: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
            let mut sorted = listed.clone();
            sorted.sort();
            assert_eq!(listed, sorted, "sorted entries");
            listed.retain(|name| name.ends_with(exe));
            assert_eq!(listed, [format!("{top}/{exe}")]);
            for entry in &entries {
                assert_eq!(entry.time, source_date_epoch_time(), "{}", entry.name);
                let mode = if entry.name.ends_with(".exe") {
                    0o100755
                } else {
                    0o100644
                };
                assert_eq!(entry.mode, mode, "{}", entry.name);
            }
        } else {
            tar_x(&packed.out.join(format!("{top}.tar.gz")), &dir);
        }
        let unpacked = dir.join(&top);
        assert_eq!(std::fs::read(unpacked.join(exe)).unwrap(), fake, "{target}");
        let mut want = docs.clone();
        want.push(exe.to_string());
        want.sort();
        assert_eq!(
            names(&unpacked),
            want,
            "{target}: the binary and the same docs"
        );
        for doc in &docs {
            assert_eq!(
                std::fs::read(unpacked.join(doc)).unwrap(),
                std::fs::read(host_dir.join(&host_top).join(doc)).unwrap(),
                "{target}: {doc}"
            );
        }
        // The npm platform package: os and cpu, bin/ask_user(.exe).
        let npm_dir = dir.join("npm");
        std::fs::create_dir_all(&npm_dir).unwrap();
        tar_x(
            &packed.out.join(format!("npm/ask-user-{platform}-{v}.tgz")),
            &npm_dir,
        );
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(npm_dir.join("package/package.json")).unwrap())
                .unwrap();
        let (os, cpu) = platform.split_once('-').unwrap();
        assert_eq!(manifest["name"], format!("@ask-user/{platform}"));
        assert_eq!(manifest["os"], serde_json::json!([os]));
        assert_eq!(manifest["cpu"], serde_json::json!([cpu]));
        assert_eq!(
            std::fs::read(npm_dir.join("package/bin").join(exe)).unwrap(),
            fake
        );
        // The wheel: the tags of its file name in WHEEL, the binary as a script.
        let wheel = packed.out.join(format!("ask_user-{v}-py3-none-{tags}.whl"));
        let wheel_dir = dir.join("wheel");
        unzip(&wheel, &wheel_dir);
        let wheel_meta =
            std::fs::read_to_string(wheel_dir.join(format!("ask_user-{v}.dist-info/WHEEL")))
                .unwrap();
        for tag in tags.split('.') {
            assert!(
                wheel_meta.contains(&format!("Tag: py3-none-{tag}\n")),
                "{wheel_meta}"
            );
        }
        assert_eq!(
            std::fs::read(wheel_dir.join(format!("ask_user-{v}.data/scripts/{exe}"))).unwrap(),
            fake
        );
        // The bundle: its OS alone, server/ask_user(.exe).
        let bundle_dir = dir.join("mcpb");
        unzip(
            &packed.out.join(format!("ask_user-{v}-{platform}.mcpb")),
            &bundle_dir,
        );
        let bundle: Value =
            serde_json::from_slice(&std::fs::read(bundle_dir.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(
            bundle["compatibility"]["platforms"],
            serde_json::json!([os])
        );
        assert_eq!(bundle["server"]["entry_point"], format!("server/{exe}"));
        assert_eq!(
            std::fs::read(bundle_dir.join("server").join(exe)).unwrap(),
            fake
        );
    }
}

/// SHA256SUMS lists every artifact of every target and checks; the formula
/// has each Linux and macOS archive's URL and sha256 (not Windows'); the
/// registry entry lists each bundle with its sha256.
pub fn dist_sums_formula_and_registry_cover_every_target() {
    let dist = dist();
    let packed = packed();
    let v = &dist.version;
    let sums = std::fs::read_to_string(packed.out.join("SHA256SUMS")).unwrap();
    let listed: Vec<&str> = sums
        .lines()
        .map(|line| line.split_once("  ").unwrap().1)
        .collect();
    let mut artifacts: Vec<String> = names(&packed.out)
        .into_iter()
        .filter(|n| {
            [".tar.gz", ".zip", ".tgz", ".whl", ".mcpb"]
                .iter()
                .any(|s| n.ends_with(s))
        })
        .collect();
    artifacts.sort();
    assert_eq!(listed, artifacts);
    let check = Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&packed.out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    let formula = std::fs::read_to_string(packed.out.join("ask_user.rb")).unwrap();
    let homebrew = foreign()
        .into_iter()
        .map(|(target, ..)| target)
        .filter(|target| !target.contains("-windows-"));
    for target in std::iter::once(dist.target.as_str()).chain(homebrew) {
        let name = format!("ask_user-{v}-{target}.tar.gz");
        assert!(
            formula.contains(&format!("/releases/download/v{v}/{name}\"")),
            "{name} in\n{formula}"
        );
        assert!(
            formula.contains(&format!(
                "sha256 \"{}\"",
                sha256_hex(&packed.out.join(&name))
            )),
            "{name}'s sha256 in\n{formula}"
        );
    }
    assert!(!formula.contains("windows"), "{formula}");

    let server: Value =
        serde_json::from_slice(&std::fs::read(packed.out.join("server.json")).unwrap()).unwrap();
    let mut bundles: Vec<(String, String)> = server["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["registryType"] == "mcpb")
        .map(|p| {
            (
                p["identifier"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                p["fileSha256"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    bundles.sort();
    let mut want: Vec<(String, String)> = names(&packed.out)
        .into_iter()
        .filter(|n| n.ends_with(".mcpb"))
        .map(|n| {
            let sum = sha256_hex(&packed.out.join(&n));
            (n, sum)
        })
        .collect();
    want.sort();
    assert_eq!(want.len(), 1 + foreign().len(), "{want:?}");
    assert_eq!(bundles, want);
}

/// A binary in the wrong TARGET folder (here a Mach-O one where aarch64
/// Linux belongs) is refused with one line naming it, and nothing is packed.
pub fn dist_refuses_a_binary_of_another_format_than_its_target() {
    let scratch = tempfile::tempdir().unwrap();
    let from = scratch.path().join("from");
    let wrong = from.join("aarch64-unknown-linux-gnu");
    std::fs::create_dir_all(&wrong).unwrap();
    std::fs::write(wrong.join("ask_user"), fake_binary("aarch64-apple-darwin")).unwrap();
    let out = scratch.path().join("out");
    let output = run_dist(&out, &from);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "dist: {}/ask_user is not an ELF aarch64 executable, as aarch64-unknown-linux-gnu needs: \
             rebuild it with scripts/build-release --target aarch64-unknown-linux-gnu\n",
            wrong.display()
        )),
        "{stderr}"
    );
    let written: Vec<String> = names(&out)
        .into_iter()
        .filter(|n| !n.ends_with('/'))
        .collect();
    assert!(written.is_empty(), "nothing packed: {written:?}");
}

/// `tar -xzf ARCHIVE -C DIR`.
fn tar_x(archive: &Path, dir: &Path) {
    let output = Command::new("tar")
        .arg("-xzf")
        .arg(archive)
        .arg("-C")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "tar -xzf {}: {}",
        archive.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
