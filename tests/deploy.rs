//! The deployment files of `deploy/`, checked with the tools that read them:
//! the systemd unit with `systemd-analyze verify`, which must exit 0 and say
//! nothing (it prints a warning, and still exits 0, for an unknown key or a
//! value it cannot parse). Its ExecStart is pointed at the binary under test,
//! since verify checks that the program exists; nothing else is changed.
//! The compose file with `docker-compose config` (Debian's 1.29.2: the
//! compose schema, every variable resolved), its Caddyfile with `caddy
//! validate`, and the replicas' command line with the binary itself.
//! Without a tool (macOS, Windows) its tests are ignored.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::harness;

common::harness::main!(
    the_systemd_unit_verifies_clean,
    a_broken_unit_is_caught_by_the_same_check,
    the_compose_file_and_its_caddyfile_validate,
    a_broken_compose_file_or_caddyfile_is_caught,
    the_compose_replicas_command_line_is_one_the_binary_takes,
);

const UNIT: &str = include_str!("../deploy/ask_user-inbox.service");

fn systemd_analyze() -> PathBuf {
    let found = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file());
    harness::require(found, "systemd-analyze (Debian's systemd package)")
}

/// `systemd-analyze verify` on `unit` (with ExecStart on the test binary):
/// its exit code and everything it said.
fn verify(unit: &str) -> (Option<i32>, String) {
    let tool = systemd_analyze();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ask_user-inbox.service");
    std::fs::write(&path, unit.replace("/usr/local/bin/ask_user", common::BIN)).unwrap();
    let out = Command::new(tool)
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    (out.status.code(), said(&out))
}

fn the_systemd_unit_verifies_clean() {
    assert!(UNIT.contains("ExecStart=/usr/local/bin/ask_user inbox "));
    let (code, said) = verify(UNIT);
    assert_eq!((code, said.as_str()), (Some(0), ""));
}

fn a_broken_unit_is_caught_by_the_same_check() {
    // A misspelt key and a bad value: exit 0, but not silent.
    let (code, said) = verify(&UNIT.replace("NoNewPrivileges=", "NoNewPrivilegez="));
    assert_eq!(code, Some(0));
    assert!(said.contains("Unknown key 'NoNewPrivilegez'"), "{said}");
    let (_, said) = verify(&UNIT.replace("Restart=on-failure", "Restart=sometimes"));
    assert!(said.contains("restart specifier"), "{said}");
}

const COMPOSE: &str = include_str!("../deploy/compose/compose.yaml");
const CADDYFILE: &str = include_str!("../deploy/compose/Caddyfile");

/// `docker-compose config -q` on `compose` in a folder with a tokens file,
/// with the two variables set: its exit code and everything it said.
fn compose_config(compose: &str) -> (Option<i32>, String) {
    let tool = harness::require(
        found("docker-compose"),
        "docker-compose (Debian's docker-compose; run .ci/setup-deploy.sh)",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("compose.yaml"), compose).unwrap();
    std::fs::write(dir.path().join("tokens"), "").unwrap();
    let out = Command::new(tool)
        .args(["-f", "compose.yaml", "config", "-q"])
        .current_dir(dir.path())
        .env("POSTGRES_PASSWORD", "0123456789abcdef")
        .env("ASK_USER_PUBLIC_HOST", "inbox.example.com")
        .output()
        .unwrap();
    (out.status.code(), said(&out))
}

/// `caddy validate` on `caddyfile`: its exit code and its last lines.
fn caddy_validate(caddyfile: &str) -> (Option<i32>, String) {
    let tool = harness::require(found("caddy"), "Caddy (run .ci/setup-deploy.sh)");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Caddyfile"), caddyfile).unwrap();
    let out = Command::new(tool)
        .args([
            "validate",
            "--adapter",
            "caddyfile",
            "--config",
            "Caddyfile",
        ])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("ASK_USER_PUBLIC_HOST", "inbox.example.com")
        .output()
        .unwrap();
    (out.status.code(), said(&out))
}

fn found(program: &str) -> Option<PathBuf> {
    ["/usr/bin", "/usr/local/bin", "/bin"]
        .into_iter()
        .map(|dir| PathBuf::from(dir).join(program))
        .find(|path| path.is_file())
}

fn the_compose_file_and_its_caddyfile_validate() {
    let (code, said) = compose_config(COMPOSE);
    assert_eq!((code, said.as_str()), (Some(0), ""));
    let (code, said) = caddy_validate(CADDYFILE);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Valid configuration"), "{said}");
}

fn a_broken_compose_file_or_caddyfile_is_caught() {
    let (code, said) = compose_config(&COMPOSE.replace("restart: unless-stopped", "restartt: no"));
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("restartt"), "{said}");
    let (code, said) = caddy_validate(&CADDYFILE.replace("lb_try_duration", "lb_try_durationn"));
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("lb_try_durationn"), "{said}");
}

/// The replicas' `command:` as the binary sees it: every flag is taken
/// (no usage error); it stops at the store, which is not there.
fn the_compose_replicas_command_line_is_one_the_binary_takes() {
    let start = COMPOSE.find("  command:\n").unwrap() + "  command:\n".len();
    let args: Vec<String> = COMPOSE[start..]
        .lines()
        .map_while(|line| line.strip_prefix("    - "))
        .map(|arg| {
            arg.replace(
                "${ASK_USER_PUBLIC_HOST:?set ASK_USER_PUBLIC_HOST in .env}",
                "inbox.example.com",
            )
        })
        .collect();
    assert_eq!(args[0], "inbox");
    assert!(args.iter().any(|arg| arg == "--behind-proxy"), "{args:?}");
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, "person ada 0123456789abcdef0123456789abcdef\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let args: Vec<String> = args
        .into_iter()
        .map(|arg| match arg.as_str() {
            "/run/secrets/tokens" => tokens.to_string_lossy().into_owned(),
            "0.0.0.0:8080" => "0.0.0.0:0".to_string(),
            _ => arg,
        })
        .collect();
    let out = Command::new(common::bin())
        .args(&args)
        .env("ASK_USER_STATE_DIR", dir.path().join("state"))
        .env(
            "ASK_USER_STORE",
            "postgres://ask_user:x@127.0.0.1:1/inbox?connect_timeout=2",
        )
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("STORE_ERROR") && stdout.contains("cannot open its store"),
        "{stdout}"
    );
}

/// Everything a tool said, stdout then stderr.
fn said(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}
