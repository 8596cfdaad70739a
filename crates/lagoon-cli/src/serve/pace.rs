//! Pacing: the wall clock against simulated time, waiting for the next simulated event, and
//! the pacing error (reply sent minus simulated completion, on the wall clock).
//!
//! `realtime:K` runs simulated time K times slower than the wall clock (time dilation, as
//! FEMU-style emulators do): a request arriving `w` ns after the server started enters the
//! simulation at `w / K`, and its reply is sent when the wall clock reaches `K ×` its simulated
//! completion. The server sleeps in `ppoll` (timer slack 1 ns) until [`SPIN_NS`] before the
//! next simulated event, then polls without sleeping, so the reply leaves as close to its
//! time as one core allows.

use lagoon_core::time::Ps;
use std::time::Instant;

/// How requests are paced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// Replies at the simulated completion, simulated time `k` times slower than the wall.
    Realtime { k: f64 },
    /// Replies at once; the simulation follows the wall clock and only reports latencies.
    None,
}

impl std::str::FromStr for Pace {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!("--pace {s}: expected realtime, realtime:K (K >= 1, simulated time K times slower than the wall clock) or none")
        };
        match s.split_once(':') {
            None if s == "realtime" => Ok(Pace::Realtime { k: 1.0 }),
            None if s == "none" => Ok(Pace::None),
            Some(("realtime", k)) => match k.parse::<f64>() {
                Ok(k) if k.is_finite() && (1.0..=1e6).contains(&k) => Ok(Pace::Realtime { k }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Pace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pace::Realtime { k } if *k == 1.0 => write!(f, "realtime"),
            Pace::Realtime { k } => write!(f, "realtime:{k}"),
            Pace::None => write!(f, "none"),
        }
    }
}

impl Pace {
    /// The dilation factor (1 for `none`: the simulation follows the wall clock).
    pub fn k(&self) -> f64 {
        match self {
            Pace::Realtime { k } => *k,
            Pace::None => 1.0,
        }
    }
}

/// Sleep no closer than this to the next simulated event; poll from there on.
pub const SPIN_NS: u64 = 60_000;

/// The wall clock since the server started, and its mapping to simulated time.
pub struct Clock {
    start: Instant,
    k: f64,
}

impl Clock {
    pub fn new(k: f64) -> Self {
        Self {
            start: Instant::now(),
            k,
        }
    }

    /// Wall nanoseconds since the start.
    #[inline]
    pub fn wall_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    /// Simulated time (ps) at wall time `w` (ns).
    #[inline]
    pub fn sim_ps(&self, w: u64) -> Ps {
        if self.k == 1.0 {
            return w * 1000;
        }
        (w as f64 * 1000.0 / self.k) as Ps
    }

    /// Wall time (ns) at which simulated time `t` (ps) is reached (rounded up).
    #[inline]
    pub fn wall_of(&self, t: Ps) -> u64 {
        if self.k == 1.0 {
            return t.div_ceil(1000);
        }
        (t as f64 * self.k / 1000.0).ceil() as u64
    }
}

/// Make `ppoll` timeouts as exact as the kernel allows (the default slack is 50 us).
pub fn tighten_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_TIMERSLACK takes an integer; no memory is passed.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// The signals that end the server (SIGINT, SIGTERM), blocked in the server's thread except
/// while it waits in `ppoll`, which unblocks them atomically: a signal that lands after
/// the loop looked at the stop flag stays pending and ends the very next wait at once,
/// instead of being handled before a wait that then sleeps without looking again.
pub struct SignalGate {
    /// The thread's mask before: restored when the gate is dropped.
    old: libc::sigset_t,
    /// The mask `ppoll` waits with: the old one with the two signals open.
    open: libc::sigset_t,
}

impl SignalGate {
    pub fn close() -> std::io::Result<SignalGate> {
        // SAFETY: sigset_t is plain data initialised by sigemptyset/pthread_sigmask before use.
        unsafe {
            let mut stop: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut stop);
            libc::sigaddset(&mut stop, libc::SIGINT);
            libc::sigaddset(&mut stop, libc::SIGTERM);
            let mut old: libc::sigset_t = std::mem::zeroed();
            let r = libc::pthread_sigmask(libc::SIG_BLOCK, &stop, &mut old);
            if r != 0 {
                return Err(std::io::Error::from_raw_os_error(r));
            }
            let mut open = old;
            libc::sigdelset(&mut open, libc::SIGINT);
            libc::sigdelset(&mut open, libc::SIGTERM);
            Ok(SignalGate { old, open })
        }
    }
}

impl Drop for SignalGate {
    fn drop(&mut self) {
        // SAFETY: restoring a mask this thread had.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}

/// Wait until one of `fds` is ready or `timeout_ns` passes (`None`: no limit; 0: just
/// look), with the stop signals open only during the wait (`gate`). Returns the number
/// ready (0 on timeout or an interrupting signal).
pub fn poll(
    fds: &mut [libc::pollfd],
    timeout_ns: Option<u64>,
    gate: &SignalGate,
) -> std::io::Result<usize> {
    let ts = timeout_ns.map(|t| libc::timespec {
        tv_sec: (t / 1_000_000_000).min(i32::MAX as u64) as libc::time_t,
        tv_nsec: (t % 1_000_000_000) as libc::c_long,
    });
    let tp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `fds` is a valid slice of pollfd for its length; `tp` is null or points at a
    // live timespec; the mask is a live sigset_t.
    let r = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, tp, &gate.open) };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::Interrupted {
            return Ok(0);
        }
        return Err(e);
    }
    Ok(r as usize)
}

/// The server's own pacing error, wall ns: when each reply was sent minus when its
/// simulated completion fell due.
pub struct PacingError {
    hist: hdrhistogram::Histogram<u64>,
    sum: u128,
}

impl Default for PacingError {
    fn default() -> Self {
        Self {
            // 1 ns to an hour, 3 significant digits.
            hist: hdrhistogram::Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
                .expect("valid bounds"),
            sum: 0,
        }
    }
}

/// The pacing error's distribution, wall ns.
#[derive(serde::Serialize, Clone, Debug)]
pub struct PacingSummary {
    pub replies: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

impl PacingError {
    pub fn record(&mut self, ns: u64) {
        self.hist.saturating_record(ns);
        self.sum += ns as u128;
    }

    pub fn summary(&self) -> PacingSummary {
        let n = self.hist.len();
        let q = |p: f64| {
            if n == 0 {
                0
            } else {
                self.hist.value_at_quantile(p)
            }
        };
        PacingSummary {
            replies: n,
            mean_ns: if n == 0 {
                0.0
            } else {
                self.sum as f64 / n as f64
            },
            p50_ns: q(0.5),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: self.hist.max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pace_parses_and_maps_time_both_ways() {
        assert_eq!("realtime".parse::<Pace>(), Ok(Pace::Realtime { k: 1.0 }));
        assert_eq!(
            "realtime:10".parse::<Pace>(),
            Ok(Pace::Realtime { k: 10.0 })
        );
        assert_eq!("none".parse::<Pace>(), Ok(Pace::None));
        for bad in ["realtime:0.5", "realtime:x", "fast", "none:2"] {
            assert!(bad.parse::<Pace>().is_err(), "{bad}");
        }
        let c = Clock::new(10.0);
        assert_eq!(c.sim_ps(10_000), 1_000_000);
        assert_eq!(c.wall_of(1_000_000), 10_000);
        let c = Clock::new(1.0);
        assert_eq!(
            c.wall_of(1_001),
            2,
            "rounded up: never before the completion"
        );
    }

    /// A stop signal that lands after the flag was looked at and before the wait stays
    /// pending and ends the wait at once, even a wait without a time limit.
    #[test]
    fn a_signal_before_the_wait_ends_the_wait() {
        static SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        extern "C" fn seen(_: libc::c_int) {
            SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let (tx, rx) = std::sync::mpsc::channel();
        // A thread of its own: the mask is per thread, and raise() signals the caller.
        std::thread::spawn(move || {
            // SAFETY: a handler that only stores an atomic; SIGTERM is not used elsewhere in
            // this test binary.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = seen as *const () as usize;
                libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
            }
            let gate = SignalGate::close().unwrap();
            assert!(!SEEN.load(std::sync::atomic::Ordering::Relaxed));
            // SAFETY: raising a signal in this thread.
            unsafe { libc::raise(libc::SIGTERM) };
            assert!(
                !SEEN.load(std::sync::atomic::Ordering::Relaxed),
                "blocked outside the wait"
            );
            let ready = poll(&mut [], None, &gate).unwrap();
            let _ = tx.send((ready, SEEN.load(std::sync::atomic::Ordering::Relaxed)));
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(got, Ok((0, true)), "the wait ended with the signal handled");
    }

    #[test]
    fn pacing_summary_has_mean_and_tail() {
        let mut p = PacingError::default();
        for v in 1..=100 {
            p.record(v * 1000);
        }
        let s = p.summary();
        assert_eq!(s.replies, 100);
        assert!((s.mean_ns - 50_500.0).abs() < 1.0);
        assert!((99_000..=99_100).contains(&s.p99_ns));
        assert!(s.max_ns >= 100_000);
    }
}
