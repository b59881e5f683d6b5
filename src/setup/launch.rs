//! How a host should start ask_user, from where this binary runs
//! (DESIGN §12): a stable native path where there is one, and the `npx` or
//! `uvx` form where this binary sits in a cache that may be emptied at any
//! time (`npx -y ask-user`, `uvx --from ask-user ask_user`, `pipx run`).
//!
//! Which is which is read from the binary's own canonical path, the one
//! thing every launcher leaves behind: npm's `npx` runs packages from
//! `…/_npx/<hash>/node_modules/…`, uv's `uvx` from `…/archive-vN/<hash>/…` in
//! its cache, and `pipx run` from pipx's `.cache` folder. A global npm or pip
//! install, `uv tool install`, an archive or `cargo install` are all stable
//! paths, written as they are.

use std::path::{Component, Path};

use crate::error::{AskError, Detail};

/// What a host's entry runs: `command`, then `args`, then `mcp` and the
/// host's own arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
}

/// The npm and PyPI package that carries this version's binary.
const PACKAGE: &str = "ask-user";
/// The command inside that package.
const COMMAND: &str = crate::TOOL_NAME;

/// Where the binary at `exe` (canonical, absolute) came from, and how a host
/// starts it again. `temp` is the system's temporary folder: a binary there
/// would leave the host with an entry that a reboot breaks, so that is an
/// error that says what to do instead (`TEMPORARY_BINARY`), as is a path a
/// config file cannot hold (`WRITE_ERROR`).
pub fn launch(exe: &Path, temp: &Path, version: &str) -> Result<Launch, AskError> {
    let names: Vec<&str> = exe
        .components()
        .filter_map(|part| match part {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    let pinned = |separator: &str| format!("{PACKAGE}{separator}{version}");
    if names.contains(&"_npx") {
        return Ok(Launch {
            command: "npx".into(),
            args: vec!["-y".into(), pinned("@")],
        });
    }
    let in_uv_cache = names.iter().any(|name| {
        name.strip_prefix("archive-v")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if in_uv_cache {
        return Ok(Launch {
            command: "uvx".into(),
            args: vec!["--from".into(), pinned("=="), COMMAND.into()],
        });
    }
    let in_pipx_cache = names
        .windows(2)
        .any(|pair| matches!(pair, ["pipx", ".cache"] | [".cache", "pipx"]));
    if in_pipx_cache {
        return Ok(Launch {
            command: "pipx".into(),
            args: vec!["run".into(), "--spec".into(), pinned("=="), COMMAND.into()],
        });
    }
    if exe.starts_with(temp) {
        return Err(AskError::TemporaryBinary(Detail::new(format!(
            "this ask_user runs from the temporary folder {}, which the system may empty, \
             so a host could not start it later; install it (npm install -g ask-user, \
             pipx install ask-user, uv tool install ask-user, or the release archive \
             into ~/.local/bin) and run setup from there",
            exe.parent().unwrap_or(exe).display()
        ))));
    }
    match exe.to_str() {
        Some(path) => Ok(Launch {
            command: path.to_string(),
            args: Vec::new(),
        }),
        None => Err(AskError::WriteError(Detail::new(format!(
            "the path of this binary, {}, is not UTF-8, so a config file cannot hold it; \
             move ask_user to a UTF-8 path",
            exe.display()
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The launch, or the refusal's code and message.
    fn from(path: &str) -> Result<Launch, (&'static str, String)> {
        launch(Path::new(path), Path::new("/tmp"), "1.2.3")
            .map_err(|error| (error.code(), error.message().to_string()))
    }

    fn native(path: &str) -> Launch {
        Launch {
            command: path.into(),
            args: vec![],
        }
    }

    #[test]
    fn npx_caches_get_the_pinned_npx_form() {
        let want = Launch {
            command: "npx".into(),
            args: vec!["-y".into(), "ask-user@1.2.3".into()],
        };
        for path in [
            "/home/a/.npm/_npx/0f3c9a/node_modules/@ask-user/linux-x64/bin/ask_user",
            "/custom/cache/_npx/1/node_modules/@ask-user/darwin-arm64/bin/ask_user",
            // Even under the temporary folder (npm_config_cache=/tmp/…).
            "/tmp/npm-cache/_npx/1/node_modules/@ask-user/linux-x64/bin/ask_user",
        ] {
            assert_eq!(from(path), Ok(want.clone()), "{path}");
        }
    }

    #[test]
    fn uv_and_pipx_caches_get_their_run_forms() {
        let uvx = Launch {
            command: "uvx".into(),
            args: vec!["--from".into(), "ask-user==1.2.3".into(), "ask_user".into()],
        };
        assert_eq!(
            from("/home/a/.cache/uv/archive-v0/AbC12/bin/ask_user"),
            Ok(uvx.clone())
        );
        assert_eq!(from("/srv/uvcache/archive-v12/x/bin/ask_user"), Ok(uvx));
        let pipx = Launch {
            command: "pipx".into(),
            args: vec![
                "run".into(),
                "--spec".into(),
                "ask-user==1.2.3".into(),
                "ask_user".into(),
            ],
        };
        assert_eq!(
            from("/home/a/.local/pipx/.cache/5f1/bin/ask_user"),
            Ok(pipx.clone())
        );
        assert_eq!(from("/home/a/.cache/pipx/5f1/bin/ask_user"), Ok(pipx));
    }

    #[test]
    fn stable_installs_keep_their_native_path() {
        for path in [
            // npm install -g, in a prefix and in nvm's.
            "/usr/local/lib/node_modules/ask-user/node_modules/@ask-user/linux-x64/bin/ask_user",
            "/home/a/.nvm/versions/node/v22.1.0/lib/node_modules/@ask-user/linux-x64/bin/ask_user",
            // pip in a venv, uv tool install, pipx install, an archive, cargo.
            "/home/a/venv/bin/ask_user",
            "/home/a/.local/share/uv/tools/ask-user/bin/ask_user",
            "/home/a/.local/share/pipx/venvs/ask-user/bin/ask_user",
            "/home/a/.local/bin/ask_user",
            "/home/a/.cargo/bin/ask_user",
            // Look-alikes that are not caches.
            "/home/a/archive-v/bin/ask_user",
            "/home/a/archive-vx/bin/ask_user",
            "/home/a/pipx/bin/ask_user",
            "/home/a/x_npx/bin/ask_user",
            "/tmpfiles/ask_user",
        ] {
            assert_eq!(from(path), Ok(native(path)), "{path}");
        }
    }

    #[test]
    fn a_binary_in_the_temporary_folder_is_refused_with_what_to_do() {
        let (code, message) = from("/tmp/x/ask_user").unwrap_err();
        assert_eq!(code, "TEMPORARY_BINARY");
        assert!(
            message.starts_with(
                "this ask_user runs from the temporary folder /tmp/x, which the system may empty"
            ),
            "{message}"
        );
        assert!(message.contains("npm install -g ask-user"), "{message}");
        assert!(message.ends_with("and run setup from there"), "{message}");
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/opt/\xff/ask_user"));
        let error = launch(path, Path::new("/tmp"), "1").unwrap_err();
        assert_eq!(error.code(), "WRITE_ERROR");
        assert!(error.message().contains("is not UTF-8"), "{error}");
    }

    /// Windows paths, as `current_exe` gives them (after the `\\?\` prefix
    /// is dropped): the caches are found by the same folder names, the
    /// `.exe` changes nothing, and `%TEMP%` is refused.
    #[cfg(windows)]
    #[test]
    fn windows_paths_are_read_the_same_way() {
        let temp = Path::new(r"C:\Users\a\AppData\Local\Temp");
        let from = |path: &str| {
            launch(Path::new(path), temp, "1.2.3").map_err(|error| error.message().to_string())
        };
        assert_eq!(
            from(r"C:\Users\a\AppData\Local\npm-cache\_npx\0f3c\node_modules\@ask-user\win32-x64\bin\ask_user.exe")
                .map(|l| l.command),
            Ok("npx".to_string())
        );
        assert_eq!(
            from(r"C:\Users\a\AppData\Local\uv\cache\archive-v0\AbC\Scripts\ask_user.exe")
                .map(|l| l.command),
            Ok("uvx".to_string())
        );
        let installed = r"C:\Users\a\.cargo\bin\ask_user.exe";
        assert_eq!(from(installed), Ok(native(installed)));
        let message = from(r"C:\Users\a\AppData\Local\Temp\x\ask_user.exe").unwrap_err();
        assert!(
            message.contains(r"temporary folder C:\Users\a\AppData\Local\Temp\x"),
            "{message}"
        );
    }
}
