//! One cancellation mechanism for every long computation (a simulation, a lifetime, a sweep):
//! a flag shared between whoever asks (a Ctrl-C handler, Python's signal check, a server
//! shutting down) and the loop that does the work, which looks at it every few milliseconds.
//!
//! Two requests: `abort` (stop, the result is lost) and `finish` (stop taking new work and
//! report what was done, for long-lived commands that end on a signal).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

const RUNNING: u8 = 0;
const FINISH: u8 = 1;
const ABORT: u8 = 2;

/// A cloneable handle on one shared cancellation flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicU8>);

/// What a loop should do when it looks at the flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Go on.
    None,
    /// Stop and report what was done.
    Finish,
    /// Stop; the result is discarded.
    Abort,
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the work to stop; its result is lost.
    pub fn abort(&self) {
        self.0.store(ABORT, Ordering::Relaxed);
    }

    /// Ask the work to stop and report what it did (an abort already asked stays an abort).
    pub fn finish(&self) {
        let _ = self
            .0
            .compare_exchange(RUNNING, FINISH, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The request now.
    #[inline]
    pub fn request(&self) -> Request {
        match self.0.load(Ordering::Relaxed) {
            RUNNING => Request::None,
            FINISH => Request::Finish,
            _ => Request::Abort,
        }
    }

    /// Whether any stop was asked.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.request() != Request::None
    }
}

thread_local! {
    static SCOPED: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// Run `f` with `c` as this thread's flag for work that is handed none: a drive's
/// construction, whose steady-state preconditioning (a functional warm-up of seconds to
/// minutes) looks at it through [`scoped_is_set`]. Work cut short by it is incomplete: the
/// caller looks at `c` after `f` and discards what `f` built.
pub fn within<T>(c: Option<&Cancel>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Cancel>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            SCOPED.with(|s| *s.borrow_mut() = prev);
        }
    }
    let _restore = Restore(SCOPED.with(|s| s.replace(c.cloned())));
    f()
}

/// Whether the flag of the enclosing [`within`] asks to stop (false outside one).
pub fn scoped_is_set() -> bool {
    SCOPED.with(|s| s.borrow().as_ref().is_some_and(Cancel::is_set))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_wins_over_finish_and_clones_share_the_flag() {
        let c = Cancel::new();
        let d = c.clone();
        assert_eq!(d.request(), Request::None);
        c.finish();
        assert_eq!(d.request(), Request::Finish);
        d.abort();
        c.finish();
        assert_eq!(c.request(), Request::Abort);
        assert!(c.is_set());
    }

    #[test]
    fn a_scoped_flag_is_seen_inside_its_scope_only() {
        let c = Cancel::new();
        c.finish();
        assert!(!scoped_is_set());
        assert!(within(Some(&c), scoped_is_set));
        assert!(!within(None, scoped_is_set));
        assert!(within(Some(&c), || within(None, || !scoped_is_set())
            && scoped_is_set()));
        assert!(!scoped_is_set());
    }
}
