//! Ctrl-C for every command, through the core's one cancellation flag
//! ([`lagoon_core::cancel::Cancel`]): the process has one [`Cancel`] ([`cancel`]) that
//! every simulation and lifetime it starts looks at every few milliseconds.
//!
//! On a terminal ([`install`], the `lagoon` binary): the first Ctrl-C asks a long-lived
//! command that can report what it did (`run`, `lifetime`) to finish and write its report,
//! marked as interrupted, and everything else to stop; the second stops everything; the third
//! ends the process at once (the default action), for a command stuck outside a simulation.
//! Under Python the package polls the interpreter's signals instead and aborts the same flag.
//! A stopped command exits with status 130 (128 + SIGINT) and leaves no output file that
//! looks complete: files are written under a temporary name and renamed at the end.

use lagoon_core::cancel::{Cancel, Request};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::OnceLock;

static CANCEL: OnceLock<Cancel> = OnceLock::new();
static HITS: AtomicU32 = AtomicU32::new(0);
static FINISH_FIRST: AtomicBool = AtomicBool::new(false);

/// The process's cancellation flag.
pub fn cancel() -> Cancel {
    CANCEL.get_or_init(Cancel::new).clone()
}

/// Whether a stop (of either kind) was asked.
pub fn requested() -> bool {
    CANCEL.get().is_some_and(|c| c.is_set())
}

/// Whether an abort was asked (a finish lets the command write what it has).
pub fn aborted() -> bool {
    CANCEL.get().is_some_and(|c| c.request() == Request::Abort)
}

/// An error ([`is_cancellation`]) once an abort was asked, for work done before the first
/// simulation starts (building and checking a study's runs), which no simulation's own look
/// at the flag covers.
pub fn check() -> anyhow::Result<()> {
    if aborted() {
        anyhow::bail!("stopped by Ctrl-C before the first run");
    }
    Ok(())
}

/// The exit status of a command stopped by Ctrl-C.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Let the first Ctrl-C ask for a finish (the command reports what it did) rather than an
/// abort; `lagoon run` and `lagoon lifetime` do.
pub fn finish_on_first(yes: bool) {
    FINISH_FIRST.store(yes, Ordering::Relaxed);
}

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    // Only atomic operations: async-signal-safe.
    let n = HITS.fetch_add(1, Ordering::Relaxed);
    if let Some(c) = CANCEL.get() {
        match n {
            0 if FINISH_FIRST.load(Ordering::Relaxed) => c.finish(),
            0 | 1 => c.abort(),
            _ => unsafe {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::raise(libc::SIGINT);
            },
        }
    }
}

/// Catch SIGINT for the process (the `lagoon` binary; not under Python, whose own handler
/// the package polls), first thing in `main`, before any work.
///
/// A SIGINT its parent set to be ignored stays ignored, as POSIX shells expect of a
/// background job (`lagoon run ... &` in a script: the terminal's Ctrl-C is for the
/// foreground, so the shell starts background jobs with SIGINT ignored); SIGTERM still ends
/// it. Returns whether SIGINT is caught.
pub fn install() -> bool {
    let _ = cancel();
    #[cfg(unix)]
    unsafe {
        // Query the inherited disposition without changing it (a signal() to look would
        // open a window with no handler).
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old);
        if old.sa_sigaction == libc::SIG_IGN {
            return false;
        }
        let mut sa: libc::sigaction = std::mem::zeroed();
        let handler: extern "C" fn(libc::c_int) = on_sigint;
        sa.sa_sigaction = handler as libc::sighandler_t;
        // SA_RESTART: a read or write the signal lands in goes on; every loop looks at the
        // flag on its own.
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        // A parent may hand down SIGINT blocked (the mask survives exec): unblock it.
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
    true
}

/// Whether `e` is a run stopped by the flag (a cancelled simulation or lifetime).
pub fn is_cancellation(e: &anyhow::Error) -> bool {
    use lagoon_core::scenario::ScenarioError;
    use lagoon_core::sim::SimError;
    let cancelled = |s: &SimError| matches!(s, SimError::Cancelled { .. });
    e.chain().any(|c| {
        // A scenario's error is transparent: its SimError is not a separate link.
        c.downcast_ref::<SimError>().is_some_and(cancelled)
            || c.downcast_ref::<ScenarioError>()
                .is_some_and(|s| matches!(s, ScenarioError::Sim(s) if cancelled(s)))
            || c.to_string().ends_with(lagoon_core::lifetime::CANCELLED)
    }) || aborted()
}
