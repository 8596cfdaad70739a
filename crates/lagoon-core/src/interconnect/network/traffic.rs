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
//! Measurement, as BookSim2's `sim_type = latency` does it:
//!
//! ```text
//! 0 ── warm-up ──▶ t_w ─ sample 1 ─▶ ─ sample 2 ─▶ … ─ sample K ─▶ t_e ── drain ──▶ done
//!                  packets created in samples 1..K are measured; accepted load = flits
//!                  delivered in [t_w, t_e) / endpoints / cycles; injection goes on while
//!                  the measured packets drain
//! ```
//!
//! Sampling stops after the first sample K >= 2 at which at least `min_packets` packets
//! have been created in the window and the mean latency of the measured packets delivered so
//! far changed by at most `converge` (5 %) over the last sample, or after `max_samples`
//! (then `converged` is false). A load whose expected packets in `max_samples` samples fall
//! short of `min_packets` is not simulated: the point says it is too light to measure.
//!
//! *Saturation*, by definition: the network does not carry the offered load. Flits are
//! conserved, so flits in the network and source queues at `t_e` = at `t_w` + created −
//! delivered in between; a stable network holds that backlog steady and a saturated one grows
//! it by the difference between offered and accepted load. A point is saturated when the
//! backlog grew by more than the sampling error of the created flits (three standard
//! deviations of a Poisson count of packets, times the packet's flits), or when measured
//! packets are still undelivered at the drain limit. The same conservation bounds what is
//! accepted: accepted <= generated + the backlog at `t_w` (exactly), so accepted exceeds
//! generated only by that backlog's share, which a stable network's sampling error covers.

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

/// Warm-up, sampling and drain, in cycles (BookSim2's `warmup_periods`, `sample_period`,
/// `max_samples`, and its convergence threshold).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Windows {
    pub warmup_cycles: u64,
    /// One sample period.
    pub sample_cycles: u64,
    /// Longest the measured packets are waited for after the last sample.
    pub drain_cycles: u64,
    /// Sample periods at most.
    pub max_samples: u32,
    /// Packets the measurement needs at least (created in the sample periods).
    pub min_packets: u64,
    /// Largest relative change of the mean latency over the last sample that counts as
    /// converged.
    pub converge: f64,
}

impl Default for Windows {
    fn default() -> Self {
        Self {
            warmup_cycles: 10_000,
            sample_cycles: 10_000,
            drain_cycles: 100_000,
            max_samples: 20,
            min_packets: 1_000,
            converge: 0.05,
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
    /// Flits per endpoint per cycle asked for, created (in the sample periods), and
    /// delivered (in the sample periods).
    pub offered_load: f64,
    pub generated_load: f64,
    pub accepted_load: f64,
    pub latency_cycles: Latency,
    /// Router-to-router hops per measured packet.
    pub hops_mean: f64,
    pub saturated: bool,
    /// The mean latency settled (within `converge` over the last sample) with at least
    /// `min_packets` measured.
    pub converged: bool,
    /// Why the point was not measured (a load too light to give `min_packets` packets in
    /// `max_samples` samples); its numbers are then zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
    pub samples: u32,
    pub packets_measured: u64,
    /// Measured packets still undelivered at the drain limit.
    pub packets_unfinished: u64,
    /// Flits in the network and source queues when sampling started and when it ended.
    pub backlog_flits_start: u64,
    pub backlog_flits_end: u64,
    /// One cycle, ns (a flit time on a link).
    pub cycle_ns: f64,
    /// Simulator events handled (for speed comparisons).
    pub events: u64,
}

/// Most packets the source queues may hold together before injection stops (saturated
/// points): 4 M packets, about 300 MB of packet and message records, shared over the
/// endpoints (at most 1 M each, as before the share; at least 1,024).
const BACKLOG_TOTAL: u32 = 1 << 22;

/// Most packets one measurement may measure: their latencies are kept for exact
/// percentiles (16 bytes each, 2 GB).
const MEASURED_LIMIT: u64 = 1 << 27;

/// Packets are tagged with their sample period (0: warm-up; 1..=max: a sample; above:
/// created while draining) in the low bits.
const PERIOD_BITS: u32 = 16;

/// A point not measured, and why: every measured number zero.
fn flagged(load: f64, why: String, cycle_ns: f64) -> LoadPoint {
    LoadPoint {
        offered_load: load,
        generated_load: 0.0,
        accepted_load: 0.0,
        latency_cycles: Latency::default(),
        hops_mean: 0.0,
        saturated: false,
        converged: false,
        unmeasured: Some(why),
        samples: 0,
        packets_measured: 0,
        packets_unfinished: 0,
        backlog_flits_start: 0,
        backlog_flits_end: 0,
        cycle_ns,
        events: 0,
    }
}

/// The time of creation `c` of a packet, a sample period: 0 warm-up, k sample k, and
/// `max + 1` for every creation after the last possible sample.
fn period_of(c: u64, w: &Windows) -> u64 {
    if c < w.warmup_cycles {
        0
    } else {
        ((c - w.warmup_cycles) / w.sample_cycles + 1).min(w.max_samples as u64 + 1)
    }
}

/// Run the network of `cfg` alone under `pattern` at `load` flits per endpoint per cycle;
/// `cancel` is looked at every 65,536 packets.
pub fn run_point(
    cfg: &SsdConfig,
    pattern: Pattern,
    load: f64,
    w: Windows,
    seed: u64,
    cancel: Option<&crate::cancel::Cancel>,
) -> Result<LoadPoint, NetError> {
    let mut net = Network::from_config(cfg, seed)?;
    let traffic = Traffic::new(pattern, &net).map_err(|m| {
        NetError::Config(crate::config::ConfigError::Invalid {
            key: "--traffic".into(),
            value: pattern.to_string(),
            reason: m,
        })
    })?;
    let window_error = |key: &str, v: String, reason: String| {
        NetError::Config(crate::config::ConfigError::Invalid {
            key: key.into(),
            value: v,
            reason,
        })
    };
    if w.sample_cycles == 0 || w.max_samples == 0 || w.max_samples >= (1 << PERIOD_BITS) - 2 {
        return Err(window_error(
            "--sample-cycles / --max-samples",
            format!("{} / {}", w.sample_cycles, w.max_samples),
            format!(
                "a sample is at least one cycle and there are 1 to {} samples",
                (1 << PERIOD_BITS) - 3
            ),
        ));
    }
    if !(w.converge > 0.0 && w.converge < 1.0) {
        return Err(window_error(
            "--converge",
            w.converge.to_string(),
            "a relative change in (0, 1)".into(),
        ));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x005E_ED7A_FF1C);
    let n = net.chips();
    let pf = net.params().packet_flits;
    let cycle = net.params().flit_time;
    let p = (load / pf as f64).clamp(0.0, 1.0);
    // Every window's end must be a time the simulator can hold.
    let sample_total = w.sample_cycles.checked_mul(w.max_samples as u64);
    let t_drain_max = sample_total
        .and_then(|s| s.checked_add(w.warmup_cycles))
        .and_then(|c| c.checked_add(w.drain_cycles))
        .and_then(|c| c.checked_mul(cycle))
        .filter(|&t| t <= crate::time::PS_PER_S * 86_400 * 100)
        .ok_or_else(|| {
            window_error(
                "--warmup-cycles + --sample-cycles x --max-samples + --drain-cycles",
                format!(
                    "{} + {} x {} + {}",
                    w.warmup_cycles, w.sample_cycles, w.max_samples, w.drain_cycles
                ),
                format!("more than 100 days of simulated time at {cycle} ps a cycle"),
            )
        })?;
    let sample_total = sample_total.expect("checked above");
    let most = sample_total as f64 * n as f64 * p;
    if most > MEASURED_LIMIT as f64 {
        return Err(window_error(
            "--sample-cycles",
            w.sample_cycles.to_string(),
            format!(
                "up to {most:.3e} packets would be measured at load {load} on {n} endpoints \
                 ({pf} flits a packet) in {} samples, more than {MEASURED_LIMIT}, whose \
                 latencies are kept for exact percentiles; use shorter samples",
                w.max_samples
            ),
        ));
    }
    let cycle_ns = crate::time::to_ns_f64(cycle);
    if most < w.min_packets as f64 {
        // Too light to measure in the longest sampling allowed: say so, simulate nothing.
        let need = (w.min_packets as f64 / (n as f64 * p.max(f64::MIN_POSITIVE))).ceil();
        return Ok(flagged(
            load,
            format!(
                "too light to measure: about {most:.3} packets in {} samples of {} cycles \
                 ({n} endpoints, {pf} flits a packet), fewer than the {} needed; give \
                 --sample-cycles x --max-samples of at least {need:.3e} cycles",
                w.max_samples, w.sample_cycles, w.min_packets
            ),
            cycle_ns,
        ));
    }
    let backlog_limit = (BACKLOG_TOTAL / n.max(1)).clamp(1 << 10, 1 << 20);
    // Next creation cycle of each endpoint: a Bernoulli process is a geometric gap, drawn
    // with ln(1 - p) as ln_1p(-p) so a tiny p does not round to a gap of one cycle.
    let ln_q = (-p).ln_1p();
    let gap = |rng: &mut Xoshiro256PlusPlus| -> u64 {
        if p >= 1.0 {
            1
        } else {
            let u: f64 = 1.0 - rng.random::<f64>();
            1 + (u.ln() / ln_q).floor().min(1e15) as u64
        }
    };
    let mut next = KeyedHeap::with_capacity(n as usize);
    if p > 0.0 {
        for e in 0..n {
            let g = gap(&mut rng) - 1;
            next.push((g, e as u64), e);
        }
    }
    let periods = w.max_samples as usize + 2;
    // Per creation period: flits created, packets created, packets outstanding.
    let mut created = vec![0u64; periods];
    let mut created_packets = vec![0u64; periods];
    let mut outstanding = vec![0u64; periods];
    // Per delivery period (by delivery time): flits delivered.
    let mut delivered = vec![0u64; periods];
    // Measured packets: (creation period, latency ps, hops).
    let mut lat: Vec<(u16, u64, u32)> = Vec::new();
    let mut done = Vec::new();
    let account = |done: &mut Vec<super::Delivery>,
                   delivered: &mut Vec<u64>,
                   outstanding: &mut Vec<u64>,
                   lat: &mut Vec<(u16, u64, u32)>| {
        for d in done.drain(..) {
            delivered[period_of(d.delivered / cycle, &w) as usize] += d.flits as u64;
            let k = (d.tag & ((1 << PERIOD_BITS) - 1)) as usize;
            outstanding[k] -= 1;
            if k >= 1 && k <= w.max_samples as usize {
                lat.push((k as u16, d.delivered - d.sent, d.hops));
            }
        }
    };
    // Mean latency of the measured packets of periods 1..=k delivered so far.
    let mean_to = |lat: &[(u16, u64, u32)], k: u16| {
        let (s, c) = lat
            .iter()
            .filter(|x| x.0 <= k)
            .fold((0u128, 0u64), |(s, c), x| (s + x.1 as u128, c + 1));
        (c > 0).then(|| s as f64 / c as f64)
    };
    let sample_end = |k: u64| (w.warmup_cycles + k * w.sample_cycles) * cycle;
    let mut k_done = 0u64; // samples finished
    let mut last_mean: Option<f64> = None;
    let mut converged = false;
    let mut stop_at: Option<u64> = None; // the last sample, once decided
    let mut seq = 0u64;
    let mut interrupted = false;
    loop {
        // Decide on every sample that has ended by the network's time.
        let now = next.peek_key().map_or(Ps::MAX, |k| k.0 as Ps * cycle);
        while stop_at.is_none() && now >= sample_end(k_done + 1) {
            net.advance(sample_end(k_done + 1) - 1, &mut done)?;
            account(&mut done, &mut delivered, &mut outstanding, &mut lat);
            k_done += 1;
            let mean = mean_to(&lat, k_done as u16);
            let packets: u64 = created_packets[1..=k_done as usize].iter().sum();
            let settled = match (last_mean, mean) {
                (Some(a), Some(b)) => (a - b).abs() <= w.converge * b,
                _ => false,
            };
            if k_done >= 2 && packets >= w.min_packets && settled {
                converged = true;
                stop_at = Some(k_done);
            } else if k_done >= w.max_samples as u64 {
                stop_at = Some(k_done);
            }
            last_mean = mean;
        }
        let t_e = sample_end(stop_at.unwrap_or(w.max_samples as u64));
        let t_drain = stop_at.map_or(t_drain_max, |k| sample_end(k) + w.drain_cycles * cycle);
        let measured_out = |o: &[u64]| {
            o[1..=stop_at.unwrap_or(w.max_samples as u64) as usize]
                .iter()
                .sum::<u64>()
        };
        let inject = |t: Ps, o: &[u64]| t < t_e || (measured_out(o) > 0 && t < t_drain);
        match next.peek_key().map(|k| k.0 as Ps * cycle) {
            Some(tc)
                if inject(tc, &outstanding)
                    && (stop_at.is_some() || tc < sample_end(k_done + 1)) =>
            {
                let ((c, _), e) = next.pop().expect("peeked");
                if tc > 0 {
                    net.advance(tc - 1, &mut done)?;
                    account(&mut done, &mut delivered, &mut outstanding, &mut lat);
                }
                if net.queued(e) < backlog_limit {
                    let k = period_of(c, &w);
                    let dst = traffic.dest(e, &mut rng);
                    net.send_flits(tc, e, dst, pf, seq << PERIOD_BITS | k);
                    seq += 1;
                    created[k as usize] += pf as u64;
                    created_packets[k as usize] += 1;
                    outstanding[k as usize] += 1;
                    if seq.is_multiple_of(1 << 16) && cancel.is_some_and(|c| c.is_set()) {
                        interrupted = true;
                        break;
                    }
                }
                next.push((c + gap(&mut rng), e as u64), e);
            }
            Some(_) if stop_at.is_none() => {
                // The next creation is past a sample's end: the loop above decides it.
                continue;
            }
            _ => {
                // No more creations: run until the measured packets are in, or the limit.
                if stop_at.is_none() {
                    // Nothing is ever created (p = 0): every sample ends at once.
                    if next.peek_key().is_none() {
                        let k = w.max_samples as u64;
                        k_done = k;
                        stop_at = Some(k);
                    }
                    continue;
                }
                if measured_out(&outstanding) == 0 {
                    break;
                }
                match net.next_event_time() {
                    Some(t) if t < t_drain => {
                        net.advance(t, &mut done)?;
                        account(&mut done, &mut delivered, &mut outstanding, &mut lat);
                    }
                    _ => break,
                }
            }
        }
    }
    let k = stop_at.unwrap_or(k_done).max(1) as usize;
    let cells = n as f64 * (k as u64 * w.sample_cycles) as f64;
    let created_in: u64 = created[1..=k].iter().sum();
    let packets_in: u64 = created_packets[1..=k].iter().sum();
    let accepted_in: u64 = delivered[1..=k].iter().sum();
    let backlog_start = created[0] - delivered[0];
    let backlog_end = (backlog_start + created_in) - accepted_in;
    let unfinished: u64 = outstanding[1..=k].iter().sum();
    let mut lats: Vec<u64> = lat
        .iter()
        .filter(|x| (x.0 as usize) <= k)
        .map(|x| x.1)
        .collect();
    let hops: u64 = lat
        .iter()
        .filter(|x| (x.0 as usize) <= k)
        .map(|x| x.2 as u64)
        .sum();
    lats.sort_unstable();
    let cyc = |v: u64| v as f64 / cycle as f64;
    let pick = |q: f64| {
        if lats.is_empty() {
            0.0
        } else {
            cyc(lats[((lats.len() - 1) as f64 * q).round() as usize])
        }
    };
    let latency = Latency {
        mean: if lats.is_empty() {
            0.0
        } else {
            lats.iter().map(|&v| cyc(v)).sum::<f64>() / lats.len() as f64
        },
        p50: pick(0.5),
        p99: pick(0.99),
        max: pick(1.0),
    };
    // Fewer packets than asked for (the draw fell short of the expected count): flagged as
    // unmeasured, as a load too light to sample.
    if !interrupted && packets_in < w.min_packets {
        return Ok(LoadPoint {
            samples: k as u32,
            packets_measured: packets_in,
            backlog_flits_start: backlog_start,
            backlog_flits_end: backlog_end,
            events: net.events(),
            ..flagged(
                load,
                format!(
                    "too light to measure: {packets_in} packets created in {k} samples of {} \
                     cycles, fewer than the {} needed; give more --max-samples or longer \
                     --sample-cycles",
                    w.sample_cycles, w.min_packets
                ),
                cycle_ns,
            )
        });
    }
    // Saturated: the backlog grew by more than the created flits' sampling error, or
    // measured packets never arrived.
    let sampling_error = 3.0 * (packets_in as f64).sqrt() * pf as f64;
    let grew = backlog_end as f64 - backlog_start as f64 > sampling_error;
    Ok(LoadPoint {
        offered_load: load,
        generated_load: created_in as f64 / cells,
        accepted_load: accepted_in as f64 / cells,
        latency_cycles: latency,
        hops_mean: if lats.is_empty() {
            0.0
        } else {
            hops as f64 / lats.len() as f64
        },
        saturated: !interrupted && (unfinished > 0 || grew),
        converged,
        unmeasured: interrupted.then(|| "interrupted (a cancel request)".to_string()),
        samples: k as u32,
        packets_measured: packets_in,
        packets_unfinished: unfinished,
        backlog_flits_start: backlog_start,
        backlog_flits_end: backlog_end,
        cycle_ns,
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

    fn windows(warmup_cycles: u64, sample_cycles: u64, max_samples: u32) -> Windows {
        Windows {
            warmup_cycles,
            sample_cycles,
            drain_cycles: 4_000,
            max_samples,
            min_packets: 200,
            converge: 0.05,
        }
    }

    fn small_packets() -> SsdConfig {
        let mut cfg = SsdConfig::default();
        cfg.network.flit_bytes = 16;
        cfg.network.link_width_bytes = 16;
        cfg.network.packet_flits = 4;
        cfg.network.vcs = 2;
        cfg.network.input_buffer_bytes = 16 * 8 * 2;
        cfg.network.output_buffer_bytes = 16 * 8 * 2;
        cfg
    }

    /// Light load: accepted equals generated (within its sampling error, and never above it
    /// by more than the backlog at the start), latency converges, not saturated; a load far
    /// beyond the mesh's capacity saturates.
    #[test]
    fn light_load_is_carried_and_overload_saturates() {
        let cfg = small_packets();
        let w = windows(1_000, 1_000, 20);
        let light = run_point(&cfg, Pattern::Uniform, 0.05, w, 3, None).unwrap();
        assert!(!light.saturated && light.converged, "{light:?}");
        assert!(
            light.packets_measured >= 200 && light.samples >= 2,
            "{light:?}"
        );
        let cells = 64.0 * (light.samples as u64 * w.sample_cycles) as f64;
        assert!(
            light.accepted_load
                <= light.generated_load + light.backlog_flits_start as f64 / cells + 1e-12,
            "{light:?}"
        );
        assert!(
            (light.accepted_load - light.generated_load).abs()
                <= 3.0 * (light.packets_measured as f64).sqrt() * 4.0 / cells
                    + light.backlog_flits_start.max(light.backlog_flits_end) as f64 / cells,
            "{light:?}"
        );
        // 8 x 8 mesh, uniform: 16/3 hops on average (including self-traffic).
        assert!((light.hops_mean - 5.25).abs() < 0.4, "{light:?}");
        let heavy = run_point(&cfg, Pattern::Uniform, 1.0, w, 3, None).unwrap();
        assert!(heavy.saturated, "{heavy:?}");
        assert!(heavy.accepted_load < 0.55, "{heavy:?}");
        assert!(
            heavy.backlog_flits_end > heavy.backlog_flits_start,
            "{heavy:?}"
        );
    }

    /// A load too light to give the minimum packets is flagged, not measured (issue 32:
    /// `--load 1e-15` reported accepted 0.32 and saturated, the gap draw having rounded to
    /// one cycle); on the Venice network's 4 KB packets `--load 0.01` in the default
    /// windows is measured with at least the minimum packets and is not saturated.
    #[test]
    fn loads_too_light_to_measure_are_flagged() {
        let cfg = SsdConfig::default();
        let p = run_point(&cfg, Pattern::Uniform, 1e-15, Windows::default(), 1, None).unwrap();
        assert!(
            p.unmeasured
                .as_deref()
                .is_some_and(|m| m.starts_with("too light")),
            "{p:?}"
        );
        assert!(!p.saturated && p.accepted_load == 0.0 && p.packets_measured == 0);
        // The gap draw on a tiny p is long, not one cycle.
        let p = run_point(
            &small_packets(),
            Pattern::Uniform,
            1e-7,
            windows(0, 1_000_000, 1),
            1,
            None,
        );
        assert!(p.unwrap().unmeasured.is_some());
    }

    /// `--load 0.01` on the default network's 512-flit packets: 250 packets in the default
    /// 20 samples, flagged (it measured 28 and called the network saturated); given enough
    /// samples it is measured, converges and is not saturated.
    #[test]
    fn a_light_load_on_big_packets_is_flagged_then_measured_with_more_samples() {
        let cfg = SsdConfig::default();
        let p = run_point(&cfg, Pattern::Uniform, 0.01, Windows::default(), 1, None).unwrap();
        assert!(
            p.unmeasured
                .as_deref()
                .is_some_and(|m| m.contains("8.000e5 cycles")),
            "{p:?}"
        );
        let w = Windows {
            max_samples: 100,
            ..Windows::default()
        };
        let p = run_point(&cfg, Pattern::Uniform, 0.01, w, 1, None).unwrap();
        assert!(p.unmeasured.is_none(), "{p:?}");
        assert!(
            p.packets_measured >= Windows::default().min_packets,
            "{p:?}"
        );
        assert!(!p.saturated, "{p:?}");
        assert!(p.packets_unfinished == 0, "{p:?}");
    }

    /// A cancel request stops a point early; it is marked and never called saturated.
    #[test]
    fn a_cancelled_point_is_marked() {
        let c = crate::cancel::Cancel::new();
        c.abort();
        let p = run_point(
            &small_packets(),
            Pattern::Uniform,
            0.5,
            windows(1_000, 100_000, 20),
            1,
            Some(&c),
        )
        .unwrap();
        assert!(
            p.unmeasured.as_deref() == Some("interrupted (a cancel request)"),
            "{p:?}"
        );
        assert!(!p.saturated);
    }

    /// Windows whose measured latencies or end time would not fit are one error naming the
    /// window, before anything runs (a `--sample-cycles` of 10^12 would keep 10^12
    /// latencies; the end of 10^17 cycles overflows the clock).
    #[test]
    fn windows_too_long_to_hold_are_named() {
        let cfg = SsdConfig::default();
        let e = run_point(&cfg, Pattern::Uniform, 1.0, windows(0, 1 << 40, 1), 1, None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--sample-cycles") && e.contains("packets would be measured"),
            "{e}"
        );
        let e = run_point(
            &cfg,
            Pattern::Uniform,
            0.01,
            windows(1 << 60, 1, 1),
            1,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("--warmup-cycles"), "{e}");
        let e = run_point(&cfg, Pattern::Uniform, 0.01, windows(0, 0, 1), 1, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--sample-cycles / --max-samples"), "{e}");
    }
}
