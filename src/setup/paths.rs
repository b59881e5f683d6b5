//! Where each host keeps its config file, on each platform, from the home
//! folder and the variables the hosts honour; and which hosts look installed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Host;

/// The operating systems whose file locations differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Linux,
    MacOs,
    Windows,
}

impl Platform {
    /// The one this binary runs on (other Unixes keep Linux's locations).
    pub fn current() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "macos") {
            Platform::MacOs
        } else {
            Platform::Linux
        }
    }
}

/// Where the files are: the home folder and the variables the hosts honour.
/// Read once from the process ([`Env::from_process`]); a value of its own
/// in the tests.
#[derive(Debug, Clone)]
pub struct Env {
    pub platform: Platform,
    /// `HOME` (Windows: `USERPROFILE`).
    pub home: PathBuf,
    /// `APPDATA` (Windows: Claude Desktop, VS Code; the roaming profile
    /// folder, `%USERPROFILE%\AppData\Roaming` when unset).
    pub appdata: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (Linux: Claude Desktop, VS Code; Amp everywhere).
    pub xdg_config_home: Option<PathBuf>,
    /// `CODEX_HOME`: Codex's folder instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`: holds `.claude.json` instead of the home folder.
    pub claude_config_dir: Option<PathBuf>,
    /// `GEMINI_CLI_HOME`: holds `.gemini` instead of the home folder.
    pub gemini_cli_home: Option<PathBuf>,
    /// `PATH`, to find the hosts' programs.
    pub path: Option<OsString>,
}

impl Env {
    /// `None` when HOME (Windows: USERPROFILE) is unset or empty.
    pub fn from_process() -> Option<Env> {
        Some(Env::from_vars(
            Platform::current(),
            ask_user_platform::paths::home()?,
            |name| std::env::var_os(name),
        ))
    }

    /// The rest of the environment, read with `lookup` (empty counts as unset).
    fn from_vars(
        platform: Platform,
        home: PathBuf,
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Env {
        let var = |name: &str| {
            lookup(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        Env {
            platform,
            home,
            appdata: var("APPDATA").filter(|_| platform == Platform::Windows),
            // The XDG rules: a relative path is to be ignored.
            xdg_config_home: var("XDG_CONFIG_HOME").filter(|path| path.is_absolute()),
            codex_home: var("CODEX_HOME"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            gemini_cli_home: var("GEMINI_CLI_HOME"),
            path: lookup("PATH"),
        }
    }

    /// `~/.config`, or `XDG_CONFIG_HOME`.
    fn config_home(&self) -> PathBuf {
        self.xdg_config_home
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
    }

    /// Where desktop apps keep their settings: `~/Library/Application
    /// Support` on macOS, the XDG config folder on Linux, `%APPDATA%` on
    /// Windows (Electron's `appData` on each: Claude Desktop and VS Code are
    /// Electron apps).
    fn app_data(&self) -> PathBuf {
        match self.platform {
            Platform::MacOs => self.home.join("Library").join("Application Support"),
            Platform::Linux => self.config_home(),
            Platform::Windows => self
                .appdata
                .clone()
                .unwrap_or_else(|| self.home.join("AppData").join("Roaming")),
        }
    }

    fn gemini_home(&self) -> PathBuf {
        self.gemini_cli_home
            .clone()
            .unwrap_or_else(|| self.home.clone())
            .join(".gemini")
    }

    fn codex_home(&self) -> PathBuf {
        self.codex_home
            .clone()
            .unwrap_or_else(|| self.home.join(".codex"))
    }
}

/// The user-level MCP config file of `host`. The same names under the
/// same folders on every platform, but for the desktop apps' folder
/// ([`Env::app_data`]); on Windows the home folder is `%USERPROFILE%`.
/// Where each host documents its file (Windows included): docs/hosts.md's
/// table of hosts, which cites each host's documentation.
pub fn config_path(host: Host, env: &Env) -> PathBuf {
    match host {
        Host::ClaudeCode => env
            .claude_config_dir
            .clone()
            .unwrap_or_else(|| env.home.clone())
            .join(".claude.json"),
        // modelcontextprotocol.io/quickstart/user: macOS and Windows
        // (`%APPDATA%\Claude\claude_desktop_config.json`).
        Host::ClaudeDesktop => env
            .app_data()
            .join("Claude")
            .join("claude_desktop_config.json"),
        Host::Codex => env.codex_home().join("config.toml"),
        Host::Gemini => env.gemini_home().join("settings.json"),
        Host::Antigravity => env
            .home
            .join(".gemini")
            .join("antigravity")
            .join("mcp_config.json"),
        Host::Cursor => env.home.join(".cursor").join("mcp.json"),
        // code.visualstudio.com/docs/configure/settings (user settings
        // folder: `%APPDATA%\Code\User` on Windows).
        Host::Vscode => env.app_data().join("Code").join("User").join("mcp.json"),
        Host::Amp => {
            // Amp reads settings.jsonc as well; a person who keeps that one
            // gets the entry there, not in a new settings.json beside it.
            let folder = env.config_home().join("amp");
            let (json, jsonc) = (folder.join("settings.json"), folder.join("settings.jsonc"));
            if !json.exists() && jsonc.exists() {
                jsonc
            } else {
                json
            }
        }
    }
}

/// The folder a host makes when it is installed or first run: the one that
/// holds its config file (for Claude Code, whose file sits in the home
/// folder, `~/.claude`).
fn marker(host: Host, env: &Env) -> PathBuf {
    match host {
        Host::ClaudeCode => env
            .claude_config_dir
            .clone()
            .unwrap_or_else(|| env.home.join(".claude")),
        _ => config_path(host, env)
            .parent()
            .map_or_else(|| env.home.clone(), Path::to_path_buf),
    }
}

/// The hosts that look installed: their folder exists or one of their
/// programs is on PATH.
pub fn detect(env: &Env) -> Vec<Host> {
    let on_path = |program: &str| {
        env.path.as_ref().is_some_and(|path| {
            std::env::split_paths(path)
                .any(|folder| ask_user_platform::paths::has_program(&folder, program))
        })
    };
    Host::ALL
        .into_iter()
        .filter(|&host| {
            marker(host, env).is_dir() || host.spec().programs.iter().any(|p| on_path(p))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(platform: Platform) -> Env {
        Env {
            platform,
            home: PathBuf::from("/h"),
            appdata: None,
            xdg_config_home: None,
            codex_home: None,
            claude_config_dir: None,
            gemini_cli_home: None,
            path: None,
        }
    }

    #[test]
    fn linux_paths_follow_the_issue_and_the_variables() {
        let mut env = env(Platform::Linux);
        let paths: Vec<_> = Host::ALL.map(|host| config_path(host, &env)).into();
        assert_eq!(
            paths,
            [
                "/h/.claude.json",
                "/h/.config/Claude/claude_desktop_config.json",
                "/h/.codex/config.toml",
                "/h/.gemini/settings.json",
                "/h/.gemini/antigravity/mcp_config.json",
                "/h/.cursor/mcp.json",
                "/h/.config/Code/User/mcp.json",
                "/h/.config/amp/settings.json",
            ]
            .map(PathBuf::from)
        );
        env.xdg_config_home = Some("/x".into());
        env.codex_home = Some("/c".into());
        env.claude_config_dir = Some("/cc".into());
        env.gemini_cli_home = Some("/g".into());
        let paths: Vec<_> = Host::ALL.map(|host| config_path(host, &env)).into();
        assert_eq!(
            paths,
            [
                "/cc/.claude.json",
                "/x/Claude/claude_desktop_config.json",
                "/c/config.toml",
                "/g/.gemini/settings.json",
                "/h/.gemini/antigravity/mcp_config.json",
                "/h/.cursor/mcp.json",
                "/x/Code/User/mcp.json",
                "/x/amp/settings.json",
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn macos_keeps_desktop_apps_in_application_support() {
        let env = env(Platform::MacOs);
        assert_eq!(
            config_path(Host::ClaudeDesktop, &env),
            PathBuf::from("/h/Library/Application Support/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            config_path(Host::Vscode, &env),
            PathBuf::from("/h/Library/Application Support/Code/User/mcp.json")
        );
        assert_eq!(
            config_path(Host::Amp, &env),
            PathBuf::from("/h/.config/amp/settings.json")
        );
        assert_eq!(
            config_path(Host::Cursor, &env),
            PathBuf::from("/h/.cursor/mcp.json")
        );
    }

    #[test]
    fn the_environment_is_read_by_the_platforms_rules() {
        let vars = |name: &str| {
            let value = match name {
                "APPDATA" => "/roaming",
                "XDG_CONFIG_HOME" => "relative/config",
                "CODEX_HOME" => "/codex",
                "CLAUDE_CONFIG_DIR" => "",
                "PATH" => "/bin",
                _ => return None,
            };
            Some(OsString::from(value))
        };
        let linux = Env::from_vars(Platform::Linux, PathBuf::from("/h"), vars);
        // APPDATA is Windows' own; a relative XDG_CONFIG_HOME is ignored; empty is unset.
        assert_eq!(linux.appdata, None);
        assert_eq!(linux.xdg_config_home, None);
        assert_eq!(linux.codex_home, Some(PathBuf::from("/codex")));
        assert_eq!(linux.claude_config_dir, None);
        assert_eq!(linux.gemini_cli_home, None);
        assert_eq!(linux.path, Some(OsString::from("/bin")));
        let windows = Env::from_vars(Platform::Windows, PathBuf::from("/h"), vars);
        assert_eq!(windows.appdata, Some(PathBuf::from("/roaming")));
        // Absolute as the running binary's std sees it: `/xdg` has no drive
        // on Windows, so it is relative there.
        let xdg = if cfg!(windows) { r"C:\xdg" } else { "/xdg" };
        let absolute = Env::from_vars(Platform::Linux, PathBuf::from("/h"), |name| {
            (name == "XDG_CONFIG_HOME").then(|| OsString::from(xdg))
        });
        assert_eq!(absolute.xdg_config_home, Some(PathBuf::from(xdg)));
    }

    #[test]
    fn windows_keeps_desktop_apps_in_appdata_and_the_rest_in_the_profile() {
        // The paths as a Windows binary builds them, written here with `/`
        // so that the test runs on every platform.
        let mut env = env(Platform::Windows);
        env.home = PathBuf::from("/Users/a");
        let paths: Vec<_> = Host::ALL.map(|host| config_path(host, &env)).into();
        assert_eq!(
            paths,
            [
                "/Users/a/.claude.json",
                "/Users/a/AppData/Roaming/Claude/claude_desktop_config.json",
                "/Users/a/.codex/config.toml",
                "/Users/a/.gemini/settings.json",
                "/Users/a/.gemini/antigravity/mcp_config.json",
                "/Users/a/.cursor/mcp.json",
                "/Users/a/AppData/Roaming/Code/User/mcp.json",
                "/Users/a/.config/amp/settings.json",
            ]
            .map(PathBuf::from)
        );
        // %APPDATA% wins for the desktop apps; XDG_CONFIG_HOME does not
        // move them (it moves Amp's, as everywhere).
        env.appdata = Some("/roaming".into());
        env.xdg_config_home = Some("/x".into());
        assert_eq!(
            config_path(Host::ClaudeDesktop, &env),
            PathBuf::from("/roaming/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            config_path(Host::Vscode, &env),
            PathBuf::from("/roaming/Code/User/mcp.json")
        );
        assert_eq!(
            config_path(Host::Amp, &env),
            PathBuf::from("/x/amp/settings.json")
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_paths_use_backslashes() {
        let mut env = env(Platform::Windows);
        env.home = PathBuf::from(r"C:\Users\a");
        env.appdata = Some(r"C:\Users\a\AppData\Roaming".into());
        assert_eq!(
            config_path(Host::ClaudeDesktop, &env).to_str(),
            Some(r"C:\Users\a\AppData\Roaming\Claude\claude_desktop_config.json")
        );
        assert_eq!(
            config_path(Host::Codex, &env).to_str(),
            Some(r"C:\Users\a\.codex\config.toml")
        );
    }

    #[test]
    fn detection_takes_config_folders_and_executable_programs_only() {
        let root = tempfile::tempdir().unwrap();
        let mut env = env(Platform::current());
        env.home = root.path().join("home");
        std::fs::create_dir_all(env.home.join(".cursor")).unwrap();
        std::fs::create_dir_all(env.home.join(".claude")).unwrap();
        let bin = root.path().join("bin");
        std::fs::create_dir_all(bin.join("codex")).unwrap();
        // A program on Unix is an executable file; on Windows a file with
        // an extension PATHEXT lists.
        #[cfg(unix)]
        for (name, mode) in [("gemini", 0o755), ("amp", 0o644)] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(bin.join(name), "").unwrap();
            std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        #[cfg(windows)]
        for name in ["gemini.cmd", "amp"] {
            std::fs::write(bin.join(name), "").unwrap();
        }
        env.path = Some(bin.into_os_string());
        // A folder named codex and a file amp that cannot run are no programs.
        assert_eq!(detect(&env), [Host::ClaudeCode, Host::Gemini, Host::Cursor]);
        env.path = None;
        assert_eq!(detect(&env), [Host::ClaudeCode, Host::Cursor]);
        // Claude Code's file sits in the home folder, which every person
        // has: its marker is ~/.claude (or CLAUDE_CONFIG_DIR), not that.
        std::fs::remove_dir(env.home.join(".claude")).unwrap();
        assert_eq!(detect(&env), [Host::Cursor]);
        env.claude_config_dir = Some(env.home.join(".cursor"));
        assert_eq!(detect(&env), [Host::ClaudeCode, Host::Cursor]);
    }
}
