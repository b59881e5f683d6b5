//! The ways a process is told to stop, as flags the faces look at.
//!
//! | [`Stop`] | Unix | Windows (console control events) |
//! |---|---|---|
//! | `Interrupt`: the person, at the keyboard | SIGINT | Ctrl-C |
//! | `Terminate`: another program ending this one | SIGTERM | Ctrl-Break (what a program can send a console process group) |
//! | `HangUp`: the terminal went away | SIGHUP | the console closed, the user logged off, the system shuts down |
//!
//! On Windows a host that ends a child with `TerminateProcess` sends no
//! event at all (nothing can be done then, as with SIGKILL). The system ends
//! the process once the handler of a close, logoff or shutdown event
//! returns, so that handler waits (up to [`CLOSE_GRACE`]) for the faces to
//! finish their clean stop first; the process exits on its own meanwhile.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub use imp::*;

/// A reason to stop (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
    HangUp,
}

/// A flag set by SIGINT, SIGTERM and SIGHUP (Windows: Ctrl-C, Ctrl-Break
/// and the console closing), for a face that stops cleanly: it ends
/// cancelled and closes its port before the process exits. A second signal
/// ends the process at once with `second_signal_exit`, should anything hang.
pub fn interrupt_on_signals(second_signal_exit: i32) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    for stop in [Stop::Interrupt, Stop::Terminate, Stop::HangUp] {
        // The shutdown must be registered first: it is armed by the flag the
        // first signal sets. If registering fails, the signal keeps its default
        // (the process ends and the kernel closes the port): no port left open.
        exit_if_set_on(stop, second_signal_exit, &flag);
        set_flag_on(stop, &flag);
    }
    flag
}

#[cfg(unix)]
mod imp {
    use super::*;

    fn number(stop: Stop) -> i32 {
        match stop {
            Stop::Interrupt => signal_hook::consts::SIGINT,
            Stop::Terminate => signal_hook::consts::SIGTERM,
            Stop::HangUp => signal_hook::consts::SIGHUP,
        }
    }

    /// Sets `flag` when `stop` arrives. If this fails, the signal keeps its
    /// default (the process ends).
    pub fn set_flag_on(stop: Stop, flag: &Arc<AtomicBool>) {
        let _ = signal_hook::flag::register(number(stop), Arc::clone(flag));
    }

    /// Ends the process with `code` when `stop` arrives while `flag` is
    /// already set: a second stop, should the clean one hang. Register it
    /// before [`set_flag_on`] with the same flag.
    pub fn exit_if_set_on(stop: Stop, code: i32, flag: &Arc<AtomicBool>) {
        let _ =
            signal_hook::flag::register_conditional_shutdown(number(stop), code, Arc::clone(flag));
    }
}

#[cfg(windows)]
mod imp {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::sync::{Mutex, Once};
    use std::time::Duration;
    use windows_sys::Win32::System::Console::{
        CTRL_BREAK_EVENT, CTRL_C_EVENT, CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT,
        SetConsoleCtrlHandler,
    };
    use windows_sys::core::BOOL;

    /// How long a close, logoff or shutdown event's handler holds the
    /// process open for the clean stop. The system allows 5 s for a close
    /// (and kills the process then), less at shutdown.
    pub const CLOSE_GRACE: Duration = Duration::from_millis(4500);

    enum Action {
        Set,
        ExitIfSet(i32),
    }

    /// What each event does, in the order registered (as signal-hook runs
    /// a signal's actions).
    static ACTIONS: Mutex<Vec<(Stop, Action, Arc<AtomicBool>)>> = Mutex::new(Vec::new());

    fn stop_of(event: u32) -> Option<Stop> {
        match event {
            CTRL_C_EVENT => Some(Stop::Interrupt),
            CTRL_BREAK_EVENT => Some(Stop::Terminate),
            CTRL_CLOSE_EVENT | CTRL_LOGOFF_EVENT | CTRL_SHUTDOWN_EVENT => Some(Stop::HangUp),
            _ => None,
        }
    }

    /// Runs on a thread the system starts for each event (not in a signal
    /// context: locking and exiting are allowed).
    pub(super) unsafe extern "system" fn handler(event: u32) -> BOOL {
        let Some(stop) = stop_of(event) else {
            return 0;
        };
        let mut handled = false;
        if let Ok(actions) = ACTIONS.lock() {
            for (_, action, flag) in actions.iter().filter(|(on, _, _)| *on == stop) {
                handled = true;
                match action {
                    Action::ExitIfSet(code) if flag.load(Ordering::SeqCst) => {
                        std::process::exit(*code)
                    }
                    Action::ExitIfSet(_) => {}
                    Action::Set => flag.store(true, Ordering::SeqCst),
                }
            }
        }
        if !handled {
            // The default: the system ends the process.
            return 0;
        }
        if stop == Stop::HangUp {
            std::thread::sleep(CLOSE_GRACE);
        }
        1
    }

    fn register(stop: Stop, action: Action, flag: &Arc<AtomicBool>) {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            // SAFETY: a handler with the signature the system expects, for
            // the life of the process. Without a console there are no
            // events; should this fail, each event keeps its default (the
            // process ends), as an unregistered Unix signal does.
            unsafe { SetConsoleCtrlHandler(Some(handler), 1) };
        });
        if let Ok(mut actions) = ACTIONS.lock() {
            actions.push((stop, action, Arc::clone(flag)));
        }
    }

    /// Sets `flag` when `stop` arrives.
    pub fn set_flag_on(stop: Stop, flag: &Arc<AtomicBool>) {
        register(stop, Action::Set, flag);
    }

    /// Ends the process with `code` when `stop` arrives while `flag` is
    /// already set: a second stop, should the clean one hang. Register it
    /// before [`set_flag_on`] with the same flag.
    pub fn exit_if_set_on(stop: Stop, code: i32, flag: &Arc<AtomicBool>) {
        register(stop, Action::ExitIfSet(code), flag);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    /// Raises `stop` in this process, as the system would deliver it.
    #[cfg(unix)]
    fn raise(stop: Stop) {
        let signal = match stop {
            Stop::Interrupt => libc::SIGINT,
            Stop::Terminate => libc::SIGTERM,
            Stop::HangUp => libc::SIGHUP,
        };
        // SAFETY: raising a signal that has a handler registered.
        unsafe { libc::raise(signal) };
    }

    #[cfg(unix)]
    #[test]
    fn a_stop_sets_its_flags_only() {
        // SIGHUP only: the test runner's other tests share this process.
        let hang_up = Arc::new(AtomicBool::new(false));
        set_flag_on(Stop::HangUp, &hang_up);
        raise(Stop::HangUp);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !hang_up.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert!(hang_up.load(Ordering::SeqCst));
    }

    #[cfg(windows)]
    #[test]
    fn console_events_set_their_flags_only() {
        use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, CTRL_C_EVENT};
        let interrupt = Arc::new(AtomicBool::new(false));
        let terminate = Arc::new(AtomicBool::new(false));
        set_flag_on(Stop::Interrupt, &interrupt);
        set_flag_on(Stop::Terminate, &terminate);
        // The handler as the system calls it, on this thread.
        // SAFETY: the handler only reads the registrations.
        assert_eq!(unsafe { imp::handler(CTRL_C_EVENT) }, 1);
        assert!(interrupt.load(Ordering::SeqCst));
        assert!(!terminate.load(Ordering::SeqCst));
        assert_eq!(unsafe { imp::handler(CTRL_BREAK_EVENT) }, 1);
        assert!(terminate.load(Ordering::SeqCst));
        // An event nothing asked for keeps the default.
        assert_eq!(unsafe { imp::handler(99) }, 0);
    }
}
