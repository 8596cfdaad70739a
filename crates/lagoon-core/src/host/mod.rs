//! Host side: workloads as flows, each with its own NVMe queue pair, and how they are
//! replayed (timed, optionally sped up, or closed loop with a fixed number outstanding).

pub mod flows;
pub mod piq;

use lagoon_workload::{IoRequest, WorkloadError};
use serde::Serialize;
use std::fmt;

/// How a flow's requests are released to the drive.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum Replay {
    /// Honour trace timestamps, divided by `speedup` (1 = as recorded).
    Timed { speedup: f64 },
    /// Ignore timestamps; keep `depth` requests outstanding.
    Closed { depth: u32 },
    /// Requests come from outside as they arrive ([`crate::sim::Simulator::submit_live`]:
    /// a live source such as `lagoon serve`); the flow's own source is not read.
    Live,
}

/// Deepest closed loop: NVMe's largest queue (65,536 entries). Each outstanding request
/// holds host and device state, so the bound is also a memory bound.
pub const MAX_CLOSED_DEPTH: u32 = 65_536;

impl std::str::FromStr for Replay {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!("invalid replay mode '{s}' (expected timed, timed:<speed-up factor > 0> or closed:<queue depth 1..={MAX_CLOSED_DEPTH}>)")
        };
        match s.split_once(':') {
            None if s == "timed" => Ok(Replay::Timed { speedup: 1.0 }),
            Some(("timed", k)) => match k.parse::<f64>() {
                Ok(v) if v > 0.0 && v.is_finite() => Ok(Replay::Timed { speedup: v }),
                _ => Err(bad()),
            },
            Some(("closed", d)) => match d.parse::<u32>() {
                Ok(v) if (1..=MAX_CLOSED_DEPTH).contains(&v) => Ok(Replay::Closed { depth: v }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Replay::Timed { speedup } if *speedup == 1.0 => write!(f, "timed"),
            Replay::Timed { speedup } => write!(f, "timed:{speedup}"),
            Replay::Closed { depth } => write!(f, "closed:{depth}"),
            Replay::Live => write!(f, "live"),
        }
    }
}

/// A stream of host requests (a trace reader or the synthetic generator).
pub type RequestSource = Box<dyn Iterator<Item = Result<IoRequest, WorkloadError>>>;

/// One flow handed to the simulator.
pub struct Flow {
    pub name: String,
    pub source: RequestSource,
    pub replay: Replay,
}

/// Replays a re-openable source `times` times back to back (for long-run memory tests):
/// pass *k* is shifted in time by *k* × (span + mean gap) so timed replay stays ordered.
pub struct Repeat<F: FnMut() -> Result<RequestSource, WorkloadError>> {
    open: F,
    current: Option<RequestSource>,
    remaining: u32,
    offset_ns: u64,
    first_ns: Option<u64>,
    last_ns: u64,
    count: u64,
}

impl<F: FnMut() -> Result<RequestSource, WorkloadError>> Repeat<F> {
    pub fn new(open: F, times: u32) -> Self {
        Self {
            open,
            current: None,
            remaining: times,
            offset_ns: 0,
            first_ns: None,
            last_ns: 0,
            count: 0,
        }
    }
}

impl<F: FnMut() -> Result<RequestSource, WorkloadError>> Iterator for Repeat<F> {
    type Item = Result<IoRequest, WorkloadError>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.current.is_none() {
                if self.remaining == 0 {
                    return None;
                }
                self.remaining -= 1;
                match (self.open)() {
                    Ok(s) => self.current = Some(s),
                    Err(e) => {
                        self.remaining = 0;
                        return Some(Err(e));
                    }
                }
            }
            match self.current.as_mut().unwrap().next() {
                Some(Ok(mut r)) => {
                    let first = *self.first_ns.get_or_insert(r.arrival_ns);
                    if self.offset_ns == 0 {
                        self.last_ns = self.last_ns.max(r.arrival_ns);
                        self.count += 1;
                    }
                    r.arrival_ns = r.arrival_ns.saturating_sub(first) + self.offset_ns + first;
                    return Some(Ok(r));
                }
                Some(Err(e)) => return Some(Err(e)),
                None => {
                    self.current = None;
                    let first = self.first_ns.unwrap_or(0);
                    let span = self.last_ns - first;
                    let gap = if self.count > 1 {
                        span / (self.count - 1)
                    } else {
                        1
                    };
                    self.offset_ns += span + gap.max(1);
                    if self.count == 0 {
                        return None;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lagoon_workload::Op;

    #[test]
    fn replay_modes_parse() {
        assert_eq!(
            "timed".parse::<Replay>().unwrap(),
            Replay::Timed { speedup: 1.0 }
        );
        assert_eq!(
            "timed:4".parse::<Replay>().unwrap(),
            Replay::Timed { speedup: 4.0 }
        );
        assert_eq!(
            "closed:32".parse::<Replay>().unwrap(),
            Replay::Closed { depth: 32 }
        );
        assert!("closed:0".parse::<Replay>().is_err());
        assert!("open".parse::<Replay>().is_err());
        assert_eq!(Replay::Closed { depth: 8 }.to_string(), "closed:8");
    }

    #[test]
    fn repeat_shifts_passes() {
        let mk = || -> Result<RequestSource, WorkloadError> {
            let v: Vec<Result<IoRequest, WorkloadError>> = [100u64, 110, 130]
                .iter()
                .map(|&t| {
                    Ok(IoRequest {
                        arrival_ns: t,
                        offset_bytes: 0,
                        size_bytes: 4096,
                        op: Op::Read,
                        device: 0,
                    })
                })
                .collect();
            Ok(Box::new(v.into_iter()))
        };
        let times: Vec<u64> = Repeat::new(mk, 2).map(|r| r.unwrap().arrival_ns).collect();
        // span 30, mean gap 15 -> second pass shifted by 45
        assert_eq!(times, vec![100, 110, 130, 145, 155, 175]);
    }
}
