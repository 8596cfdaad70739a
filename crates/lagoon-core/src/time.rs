//! Simulated time: an integer count of picoseconds.
//!
//! Picoseconds because link and bus transfers are fractions of a nanosecond per byte
//! (a 1.2 GB/s channel moves a byte in 833.3 ps); `u64` picoseconds still span 213 days.

/// A point in simulated time or a duration, in picoseconds.
pub type Ps = u64;

pub const PS_PER_NS: Ps = 1_000;
pub const PS_PER_US: Ps = 1_000_000;
pub const PS_PER_MS: Ps = 1_000_000_000;
pub const PS_PER_S: Ps = 1_000_000_000_000;

/// Nanoseconds (possibly fractional, from a config file) to picoseconds, rounded to nearest.
pub fn ns(v: f64) -> Ps {
    (v * PS_PER_NS as f64).round() as Ps
}

/// Time to move `bytes` at `bytes_per_s`, rounded up to a whole picosecond.
pub fn transfer_time(bytes: u64, bytes_per_s: f64) -> Ps {
    ((bytes as f64) * (PS_PER_S as f64) / bytes_per_s).ceil() as Ps
}

pub fn to_ns_f64(t: Ps) -> f64 {
    t as f64 / PS_PER_NS as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn transfer_rounds_up() {
        assert_eq!(transfer_time(4096, 1.024e9), 4 * PS_PER_US);
        assert_eq!(transfer_time(1, 1.2e9), 834);
        assert_eq!(ns(10.0), 10_000);
    }
}
