//! Aged preconditioning's layout (`precondition.mode = "aged"`): full blocks holding the
//! preconditioned pages with invalid pages spread over them by a distribution.

use crate::config::InvalidDistribution;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Aged preconditioning (dSSD §6.1: "SSD is fully utilized and some random fraction of the
/// pages are invalidated"): for each plane, `full` blocks hold its `pre` preconditioned pages
/// and `full × ppb − pre` invalid pages. Returns, per plane, the `full + 1` prefix sums of
/// the valid pages per block. `uniform`: every page equally likely invalid (a block's count
/// Binomial(ppb, q), the plane's total exact); `equal`: every block the same count, ±1.
pub fn aged_layout(
    planes: u32,
    full: u32,
    ppb: u32,
    pre: u64,
    dist: InvalidDistribution,
    seed: u64,
) -> Vec<u32> {
    let n = full as usize;
    let mut out = Vec::with_capacity(planes as usize * (n + 1));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6167_6564);
    let mut valid = vec![0u32; n];
    for _ in 0..planes {
        let total = full as u64 * ppb as u64;
        debug_assert!(pre <= total, "validation keeps the aged layout feasible");
        match dist {
            InvalidDistribution::Equal if n > 0 => {
                let (q, r) = (pre / n as u64, pre % n as u64);
                for (b, v) in valid.iter_mut().enumerate() {
                    *v = (q + u64::from((b as u64) < r)) as u32;
                }
            }
            _ => {
                // Each page of the full blocks invalid with the same probability q: a
                // block's invalid count is Binomial(ppb, q), drawn by its normal
                // approximation (O(1) per block), then random ±1 steps make the plane's total
                // exact.
                let invalid = total - pre;
                let q = invalid as f64 / total.max(1) as f64;
                let (mean, sd) = (ppb as f64 * q, (ppb as f64 * q * (1.0 - q)).sqrt());
                let mut sum = 0u64;
                for v in valid.iter_mut() {
                    let (u1, u2): (f64, f64) = (rng.random(), rng.random());
                    let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    let inv = (mean + sd * z).round().clamp(0.0, ppb as f64) as u32;
                    *v = ppb - inv;
                    sum += *v as u64;
                }
                while sum != pre {
                    let b = rng.random_range(0..n);
                    if sum < pre && valid[b] < ppb {
                        valid[b] += 1;
                        sum += 1;
                    } else if sum > pre && valid[b] > 0 {
                        valid[b] -= 1;
                        sum -= 1;
                    }
                }
            }
        }
        let mut acc = 0u32;
        out.push(0);
        for v in &valid {
            acc += v;
            out.push(acc);
        }
    }
    out
}
