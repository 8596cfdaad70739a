//! Synthetic traffic and the network-only mode (`lagoon net`): the way network researchers
//! validate a network, as BookSim2's `sim_type = latency`.
//!
//! Every flash-chip endpoint (the controllers stay idle) creates packets of `packet_flits`
//! flits by a Bernoulli process: in each cycle, with probability `load / packet_flits`, so
//! `load` is the offered load in flits per endpoint per cycle. A *cycle* is one flit time on a
//! link (`⌈flit_bytes / link_width_bytes⌉` link cycles; one link cycle when a flit is as wide
//! as the link, as in BookSim). Packets wait in an unbounded source queue, and latency counts
//! from creation (BookSim's `include_queuing = 1`) to the arrival of the last flit.
//!
//! Windows (BookSim: `warmup_periods` × `sample_period`, then draining the measured packets):
//!
//! ```text
//! 0 ── warm-up ──▶ t_w ── measurement ──▶ t_e ── drain (injection goes on) ──▶ all measured
//!                  packets created here        packets delivered, or the drain limit
//!                  are measured; accepted
//!                  load = flits delivered
//!                  here / endpoints / cycles
//! ```
//!
//! A point is *saturated* when the accepted load falls below the offered load (by more than
//! 2 %, the measured generation rate being the reference), or when measured packets are still
//! undelivered at the drain limit.

use super::{NetError, Network};
use crate::config::SsdConfig;
use crate::engine::KeyedHeap;
use crate::time::Ps;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// A synthetic traffic pattern over the `N` chip endpoints (BookSim's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Any endpoint, uniformly (itself included, as BookSim).
    Uniform,
    /// Endpoint (row i, column j) of a k × k grid (N = k²) to (j, i).
    Transpose,
    /// The bitwise complement (N a power of two).
    Bitcomp,
    /// A quarter of the packets to endpoint 0, the rest uniform.
    Hotspot,
    /// One step further in every dimension of a cube topology (wrapping); `i + 1 mod N`
    /// elsewhere.
    Neighbor,
}

impl Pattern {
    pub const ALL: [Pattern; 5] = [
        Pattern::Uniform,
        Pattern::Transpose,
        Pattern::Bitcomp,
        Pattern::Hotspot,
        Pattern::Neighbor,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Transpose => "transpose",
            Pattern::Bitcomp => "bitcomp",
            Pattern::Hotspot => "hotspot",
            Pattern::Neighbor => "neighbor",
        }
    }
}

impl std::str::FromStr for Pattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Pattern::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Pattern::ALL.iter().map(|p| p.name()).collect();
                format!("unknown traffic '{s}' (known: {})", names.join(", "))
            })
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Destinations of a pattern on a network.
pub struct Traffic {
    pattern: Pattern,
    n: u32,
    /// Fixed destination per source (permutations).
    fixed: Vec<u32>,
}

impl Traffic {
    pub fn new(pattern: Pattern, net: &Network) -> Result<Self, String> {
        let n = net.chips();
        let fixed: Vec<u32> = match pattern {
            Pattern::Uniform | Pattern::Hotspot => Vec::new(),
            Pattern::Transpose => {
                let k = (n as f64).sqrt().round() as u32;
                if k * k != n {
                    return Err(format!(
                        "transpose needs a square number of endpoints; there are {n} chips"
                    ));
                }
                (0..n).map(|i| (i % k) * k + i / k).collect()
            }
            Pattern::Bitcomp => {
                if !n.is_power_of_two() {
                    return Err(format!(
                        "bitcomp needs a power-of-two number of endpoints; there are {n} chips"
                    ));
                }
                (0..n).map(|i| !i & (n - 1)).collect()
            }
            Pattern::Neighbor => {
                let g = net.graph();
                let one_each = (0..n).all(|c| g.ep_router(c) == c) && n == g.routers;
                match net.topology().as_cube() {
                    Some(cube) if one_each => (0..n)
                        .map(|c| {
                            (0..cube.ndims()).fold(c, |r, d| {
                                cube.with_coord(r, d, (cube.coord(r, d) + 1) % cube.size(d))
                            })
                        })
                        .collect(),
                    _ => (0..n).map(|i| (i + 1) % n).collect(),
                }
            }
        };
        Ok(Self { pattern, n, fixed })
    }

    pub fn dest(&self, src: u32, rng: &mut impl Rng) -> u32 {
        match self.pattern {
            Pattern::Uniform => rng.random_range(0..self.n),
            Pattern::Hotspot => {
                if rng.random_ratio(1, 4) {
                    0
                } else {
                    rng.random_range(0..self.n)
                }
            }
            _ => self.fixed[src as usize],
        }
    }
}

/// Warm-up, measurement and drain windows, in cycles.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Windows {
    pub warmup_cycles: u64,
    pub sample_cycles: u64,
    /// Longest the measured packets are waited for after the measurement window.
    pub drain_cycles: u64,
}

impl Default for Windows {
    fn default() -> Self {
        Self {
            warmup_cycles: 10_000,
            sample_cycles: 20_000,
            drain_cycles: 20_000,
        }
    }
}

/// Latency of the measured packets, cycles.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Latency {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// One point of a latency / throughput curve.
#[derive(Clone, Debug, Serialize)]
pub struct LoadPoint {
    /// Flits per endpoint per cycle asked for, created (in the measurement window), and
    /// delivered (in the measurement window).
    pub offered_load: f64,
    pub generated_load: f64,
    pub accepted_load: f64,
    pub latency_cycles: Latency,
    /// Router-to-router hops per measured packet.
    pub hops_mean: f64,
    pub saturated: bool,
    pub packets_measured: u64,
    /// Measured packets still undelivered at the drain limit.
    pub packets_unfinished: u64,
    /// One cycle, ns (a flit time on a link).
    pub cycle_ns: f64,
    /// Simulator events handled (for speed comparisons).
    pub events: u64,
}

/// What the measured packets did.
#[derive(Default)]
struct Tally {
    /// Flits delivered in the measurement window.
    accepted: u64,
    /// Measured packets not yet delivered.
    outstanding: u64,
    lat: Vec<u64>,
    hops: u64,
}

impl Tally {
    fn account(&mut self, done: &mut Vec<super::Delivery>, t_w: Ps, t_e: Ps) {
        for d in done.drain(..) {
            if d.delivered >= t_w && d.delivered < t_e {
                self.accepted += d.flits as u64;
            }
            if d.tag & 1 == 1 {
                self.outstanding -= 1;
                self.lat.push(d.delivered - d.sent);
                self.hops += d.hops as u64;
            }
        }
    }
}

/// Most packets the source queues may hold together before injection stops (saturated
/// points): 4 M packets, about 300 MB of packet and message records, shared over the
/// endpoints (at most 1 M each, as before the share; at least 1,024).
const BACKLOG_TOTAL: u32 = 1 << 22;

/// Most packets one measurement window may measure: their latencies are kept for exact
/// percentiles (8 bytes each, 1 GB).
const MEASURED_LIMIT: u64 = 1 << 27;

/// Run the network of `cfg` alone under `pattern` at `load` flits per endpoint per cycle.
pub fn run_point(
    cfg: &SsdConfig,
    pattern: Pattern,
    load: f64,
    w: Windows,
    seed: u64,
) -> Result<LoadPoint, NetError> {
    let mut net = Network::from_config(cfg, seed)?;
    let traffic = Traffic::new(pattern, &net).map_err(|m| {
        NetError::Config(crate::config::ConfigError::Invalid {
            key: "--traffic".into(),
            value: pattern.to_string(),
            reason: m,
        })
    })?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x005E_ED7A_FF1C);
    let n = net.chips();
    let pf = net.params().packet_flits;
    let cycle = net.params().flit_time;
    let p = (load / pf as f64).clamp(0.0, 1.0);
    let window_error = |key: &str, v: u64, reason: String| {
        NetError::Config(crate::config::ConfigError::Invalid {
            key: key.into(),
            value: v.to_string(),
            reason,
        })
    };
    // Every window's end must be a time the simulator can hold.
    let t_drain = w
        .warmup_cycles
        .checked_add(w.sample_cycles)
        .and_then(|c| c.checked_add(w.drain_cycles))
        .and_then(|c| c.checked_mul(cycle))
        .filter(|&t| t <= crate::time::PS_PER_S * 86_400 * 100)
        .ok_or_else(|| {
            window_error(
                "--warmup-cycles + --sample-cycles + --drain-cycles",
                w.warmup_cycles
                    .saturating_add(w.sample_cycles)
                    .saturating_add(w.drain_cycles),
                format!(
                    "more than 100 days of simulated time at {} ps a cycle",
                    cycle
                ),
            )
        })?;
    let (t_w, t_e) = (
        w.warmup_cycles as Ps * cycle,
        (w.warmup_cycles + w.sample_cycles) as Ps * cycle,
    );
    let expected = w.sample_cycles as f64 * n as f64 * p;
    if expected > MEASURED_LIMIT as f64 {
        return Err(window_error(
            "--sample-cycles",
            w.sample_cycles,
            format!(
                "about {expected:.3e} packets would be measured at load {load} on {n} endpoints \
                 ({} flits a packet), more than {MEASURED_LIMIT}, whose latencies are kept \
                 for exact percentiles; use a shorter window",
                pf
            ),
        ));
    }
    let backlog_limit = (BACKLOG_TOTAL / n.max(1)).clamp(1 << 10, 1 << 20);
    // Next creation cycle of each endpoint: a Bernoulli process is a geometric gap.
    let gap = |rng: &mut Xoshiro256PlusPlus| -> u64 {
        if p >= 1.0 {
            1
        } else {
            let u: f64 = 1.0 - rng.random::<f64>();
            1 + (u.ln() / (1.0 - p).ln()).floor().min(1e15) as u64
        }
    };
    let mut next = KeyedHeap::with_capacity(n as usize);
    if p > 0.0 {
        for e in 0..n {
            let g = gap(&mut rng) - 1;
            next.push((g, e as u64), e);
        }
    }
    let mut created_in = 0u64; // flits created in the window
    let mut measured = 0u64;
    let mut tally = Tally::default();
    let mut done = Vec::new();
    let mut seq = 0u64;
    loop {
        let creating = next.peek_key().map(|k| k.0 as Ps * cycle);
        // Inject through the measurement window, and on while measured packets drain.
        let inject = |t: Ps, outstanding: u64| t < t_e || (outstanding > 0 && t < t_drain);
        match creating {
            Some(tc) if inject(tc, tally.outstanding) => {
                let ((c, _), e) = next.pop().expect("peeked");
                if tc > 0 {
                    net.advance(tc - 1, &mut done)?;
                    tally.account(&mut done, t_w, t_e);
                }
                let in_window = tc >= t_w && tc < t_e;
                if net.queued(e) < backlog_limit {
                    let dst = traffic.dest(e, &mut rng);
                    net.send_flits(tc, e, dst, pf, seq << 1 | in_window as u64);
                    seq += 1;
                    if in_window {
                        created_in += pf as u64;
                        tally.outstanding += 1;
                        measured += 1;
                    }
                }
                next.push((c + gap(&mut rng), e as u64), e);
            }
            _ => {
                // No more creations: run until the measured packets are in, or the limit.
                if tally.outstanding == 0 {
                    break;
                }
                match net.next_event_time() {
                    Some(t) if t < t_drain => {
                        net.advance(t, &mut done)?;
                        tally.account(&mut done, t_w, t_e);
                    }
                    _ => break,
                }
            }
        }
    }
    let Tally {
        accepted,
        outstanding,
        mut lat,
        hops,
    } = tally;
    let cells = n as f64 * w.sample_cycles as f64;
    let generated = created_in as f64 / cells;
    let acc = accepted as f64 / cells;
    lat.sort_unstable();
    let cyc = |v: u64| v as f64 / cycle as f64;
    let pick = |q: f64| {
        if lat.is_empty() {
            0.0
        } else {
            cyc(lat[((lat.len() - 1) as f64 * q).round() as usize])
        }
    };
    let latency = Latency {
        mean: if lat.is_empty() {
            0.0
        } else {
            lat.iter().map(|&v| cyc(v)).sum::<f64>() / lat.len() as f64
        },
        p50: pick(0.5),
        p99: pick(0.99),
        max: pick(1.0),
    };
    Ok(LoadPoint {
        offered_load: load,
        generated_load: generated,
        accepted_load: acc,
        latency_cycles: latency,
        hops_mean: if lat.is_empty() {
            0.0
        } else {
            hops as f64 / lat.len() as f64
        },
        saturated: outstanding > 0 || acc < 0.98 * generated,
        packets_measured: measured,
        packets_unfinished: outstanding,
        cycle_ns: crate::time::to_ns_f64(cycle),
        events: net.events(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_follow_booksim() {
        let cfg = SsdConfig::default();
        let net = Network::from_config(&cfg, 1).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let t = Traffic::new(Pattern::Transpose, &net).unwrap();
        // (row 1, column 2) = 10 -> (row 2, column 1) = 17.
        assert_eq!(t.dest(10, &mut rng), 17);
        let b = Traffic::new(Pattern::Bitcomp, &net).unwrap();
        assert_eq!(b.dest(5, &mut rng), 58);
        let nb = Traffic::new(Pattern::Neighbor, &net).unwrap();
        assert_eq!(nb.dest(7, &mut rng), 8); // (7, 0) -> (0, 1)
        assert_eq!(nb.dest(63, &mut rng), 0);
    }

    /// Light load: accepted equals offered (within noise), latency near zero-load, not
    /// saturated; a load far beyond the mesh's capacity saturates.
    #[test]
    fn light_load_is_carried_and_overload_saturates() {
        let mut cfg = SsdConfig::default();
        cfg.network.flit_bytes = 16;
        cfg.network.link_width_bytes = 16;
        cfg.network.packet_flits = 4;
        cfg.network.vcs = 2;
        cfg.network.input_buffer_bytes = 16 * 8 * 2;
        cfg.network.output_buffer_bytes = 16 * 8 * 2;
        let w = Windows {
            warmup_cycles: 1_000,
            sample_cycles: 4_000,
            drain_cycles: 4_000,
        };
        let light = run_point(&cfg, Pattern::Uniform, 0.05, w, 3).unwrap();
        assert!(!light.saturated, "{light:?}");
        assert!(
            (light.accepted_load - light.generated_load).abs() < 0.01,
            "{light:?}"
        );
        // 8 x 8 mesh, uniform: 16/3 hops on average (including self-traffic).
        assert!((light.hops_mean - 5.25).abs() < 0.4, "{light:?}");
        let heavy = run_point(&cfg, Pattern::Uniform, 1.0, w, 3).unwrap();
        assert!(heavy.saturated, "{heavy:?}");
        assert!(heavy.accepted_load < 0.55, "{heavy:?}");
    }

    /// Windows whose measured latencies or end time would not fit are one error naming the
    /// window, before anything runs (a `--sample-cycles` of 10^12 would keep 10^12
    /// latencies; the end of 10^17 cycles overflows the clock).
    #[test]
    fn windows_too_long_to_hold_are_named() {
        let cfg = SsdConfig::default();
        let w = |warmup_cycles, sample_cycles| Windows {
            warmup_cycles,
            sample_cycles,
            drain_cycles: 0,
        };
        let e = run_point(&cfg, Pattern::Uniform, 1.0, w(0, 1 << 40), 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--sample-cycles") && e.contains("packets would be measured"),
            "{e}"
        );
        let e = run_point(&cfg, Pattern::Uniform, 0.01, w(1 << 60, 1), 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--warmup-cycles + --sample-cycles + --drain-cycles"),
            "{e}"
        );
        // A light load over a short window runs.
        assert!(run_point(&cfg, Pattern::Uniform, 1e-9, w(0, 1_000), 1).is_ok());
    }
}
