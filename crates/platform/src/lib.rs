//! The platform seam (DESIGN §15): every place where Unix and Windows differ,
//! outside the terminal face (the binary's `tty` module), behind one small API per
//! concern. The faces call these; none of them names an OS.
//!
//! Each module has a Unix half (what ask_user always did, unchanged) and a
//! Windows half (the Win32 API through `windows-sys`), chosen at compile
//! time. The Windows choices are written where they are made.
//!
//! - [`files`]: private files and folders, keeping a config file's mode and
//!   owner, syncing a folder, the single-inbox lock.
//! - [`paths`]: the home folder, the default state folder, canonical paths,
//!   programs on `PATH`, the browser opener.
//! - [`process`]: whether a process is alive, the parent's name.
//! - [`signals`]: Ctrl-C and the ways a host or a closed terminal ends the
//!   process, as flags.
//! - [`shell`]: the `--notify` command's shell and its process group (a job
//!   object on Windows).
//! - [`net`]: which `accept` errors mean "out of descriptors".

pub mod files;
pub mod net;
pub mod paths;
pub mod process;
pub mod shell;
pub mod signals;
pub mod user;
