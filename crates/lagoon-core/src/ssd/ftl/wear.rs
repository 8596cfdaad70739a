//! Block endurance (Decoupled SSD §6.4, after its ref. [40]): every physical block gets a P/E
//! limit drawn once per run from a normal distribution; a block that has been through its
//! limit of program/erase cycles is worn out, and its next program fails (the uncorrectable
//! error of §5.2 that makes it a bad block). Bad blocks are never allocated again.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Per-block wear state, indexed by physical block (`plane * blocks_per_plane + block`).
pub struct Endurance {
    /// P/E cycles each block endures.
    limit: Vec<u32>,
    erases: Vec<u32>,
    bad: Vec<bool>,
    pub bad_blocks: u64,
}

impl Endurance {
    /// `blocks` limits from Normal(`mean`, `sigma`), rounded, at least 1; seeded.
    pub fn new(blocks: usize, mean: f64, sigma: f64, seed: u64) -> Self {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7765_6172);
        let limit = (0..blocks)
            .map(|_| {
                // Box-Muller; sigma = 0 gives exactly the mean.
                let (u1, u2): (f64, f64) = (rng.random(), rng.random());
                let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (mean + sigma * z).round().clamp(1.0, u32::MAX as f64) as u32
            })
            .collect();
        Self {
            limit,
            erases: vec![0; blocks],
            bad: vec![false; blocks],
            bad_blocks: 0,
        }
    }

    /// The block has used up its P/E cycles: a program into it fails.
    #[inline]
    pub fn worn_out(&self, block: u32) -> bool {
        self.erases[block as usize] >= self.limit[block as usize]
    }

    #[inline]
    pub fn erase(&mut self, block: u32) {
        self.erases[block as usize] += 1;
    }

    pub fn mark_bad(&mut self, block: u32) {
        debug_assert!(!self.bad[block as usize]);
        self.bad[block as usize] = true;
        self.bad_blocks += 1;
    }

    pub fn is_bad(&self, block: u32) -> bool {
        self.bad[block as usize]
    }

    pub fn erases(&self, block: u32) -> u32 {
        self.erases[block as usize]
    }

    pub fn limit(&self, block: u32) -> u32 {
        self.limit[block as usize]
    }

    /// Erase counts over all blocks: (min, mean, max).
    pub fn erase_stats(&self) -> (u32, f64, u32) {
        let n = self.erases.len().max(1) as f64;
        let lo = self.erases.iter().copied().min().unwrap_or(0);
        let hi = self.erases.iter().copied().max().unwrap_or(0);
        (
            lo,
            self.erases.iter().map(|&e| e as f64).sum::<f64>() / n,
            hi,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_follow_the_distribution_and_the_seed() {
        let e = Endurance::new(100_000, 5578.0, 826.9, 3);
        let v: Vec<f64> = e.limit.iter().map(|&x| x as f64).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
        assert!((mean - 5578.0).abs() < 10.0, "mean {mean}");
        assert!((sd - 826.9).abs() < 10.0, "sd {sd}");
        assert_eq!(e.limit, Endurance::new(100_000, 5578.0, 826.9, 3).limit);
        assert_ne!(e.limit, Endurance::new(100_000, 5578.0, 826.9, 4).limit);
        let flat = Endurance::new(1000, 5578.0, 0.0, 3);
        assert!(flat.limit.iter().all(|&l| l == 5578));
    }

    #[test]
    fn worn_out_after_exactly_limit_erases() {
        let mut e = Endurance::new(1, 3.0, 0.0, 1);
        for _ in 0..3 {
            assert!(!e.worn_out(0));
            e.erase(0);
        }
        assert!(e.worn_out(0));
    }
}
