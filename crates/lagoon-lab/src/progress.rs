//! Progress on standard error: a bar on a terminal, and plain lines every ten seconds when
//! standard error is not one (a log file, nohup, CI), so a long run shows it is alive there
//! too. One type for every command (runs, batches, lifetimes).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Seconds between two plain progress lines: 10, or `LAGOON_PROGRESS_EVERY_S` (0 to 3600).
pub fn plain_every() -> Duration {
    std::env::var("LAGOON_PROGRESS_EVERY_S")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| (0.0..=3600.0).contains(s))
        .map_or(Duration::from_secs(10), Duration::from_secs_f64)
}

pub struct Progress {
    bar: ProgressBar,
    plain: Option<Plain>,
}

struct Plain {
    every: Duration,
    unit: String,
    what: String,
    start: Instant,
    last: Mutex<Instant>,
    pos: AtomicU64,
    len: AtomicU64,
}

impl Plain {
    fn maybe_print(&self) {
        let now = Instant::now();
        let mut last = self.last.lock().expect("no panic while holding");
        if now.duration_since(*last) < self.every {
            return;
        }
        *last = now;
        let (pos, len) = (
            self.pos.load(Ordering::Relaxed),
            self.len.load(Ordering::Relaxed),
        );
        let secs = now.duration_since(self.start).as_secs();
        let of = if len > 0 {
            format!(
                "/{len} {} ({:.0} %)",
                self.unit,
                100.0 * pos as f64 / len as f64
            )
        } else {
            format!(" {}", self.unit)
        };
        eprintln!("[{secs:>5} s] {pos}{of}{}", self.what);
    }
}

impl Progress {
    /// Progress over `len` (None: unknown) `unit`s; `template` is the terminal bar's
    /// (indicatif) with `{unit}` in it replaced. Hidden when `quiet`.
    pub fn new(quiet: bool, len: Option<u64>, unit: &str, template: &str, what: &str) -> Self {
        if quiet {
            return Progress {
                bar: ProgressBar::hidden(),
                plain: None,
            };
        }
        if !std::io::stderr().is_terminal() {
            return Progress {
                bar: ProgressBar::hidden(),
                plain: Some(Plain {
                    every: plain_every(),
                    unit: unit.into(),
                    what: if what.is_empty() {
                        String::new()
                    } else {
                        format!(" {what}")
                    },
                    start: Instant::now(),
                    last: Mutex::new(Instant::now()),
                    pos: AtomicU64::new(0),
                    len: AtomicU64::new(len.unwrap_or(0)),
                }),
            };
        }
        let bar = match len {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::new_spinner(),
        };
        bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
        bar.set_style(
            ProgressStyle::with_template(&template.replace("{unit}", unit))
                .expect("valid template"),
        );
        if !what.is_empty() {
            bar.set_message(what.to_string());
        }
        Progress { bar, plain: None }
    }

    pub fn set_position(&self, n: u64) {
        self.bar.set_position(n);
        if let Some(p) = &self.plain {
            p.pos.store(n, Ordering::Relaxed);
            p.maybe_print();
        }
    }

    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        if let Some(p) = &self.plain {
            p.pos.fetch_add(n, Ordering::Relaxed);
            p.maybe_print();
        }
    }

    pub fn set_length(&self, n: u64) {
        self.bar.set_length(n);
        if let Some(p) = &self.plain {
            p.len.store(n, Ordering::Relaxed);
        }
    }

    /// The bar's message (the terminal bar only: plain lines keep theirs short).
    pub fn set_message(&self, m: String) {
        self.bar.set_message(m);
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// A progress bar over page programs, against the expected total of a whole life.
pub fn life_bar(quiet: bool, what: &str) -> Progress {
    Progress::new(
        quiet,
        Some(1),
        "page programs",
        "{spinner} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} {unit} ({per_sec}) {msg}",
        what,
    )
}
