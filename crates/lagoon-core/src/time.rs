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
#[inline]
pub fn transfer_time(bytes: u64, bytes_per_s: f64) -> Ps {
    let x = (bytes as f64) * (PS_PER_S as f64) / bytes_per_s;
    // `x.ceil() as Ps` without the libm call (this runs on every bus transfer): the
    // truncation, plus one where it fell below x.
    let t = x as Ps;
    t.saturating_add(((t as f64) < x) as Ps)
}

pub fn to_ns_f64(t: Ps) -> f64 {
    t as f64 / PS_PER_NS as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn transfer_time_is_the_ceiling() {
        let rates = [1.2e9, 2.4e9, 8e9, 1e9, 3.3e9, 0.7e9, 1e12, 1e-3];
        for bytes in [
            0u64,
            1,
            7,
            512,
            4096,
            4992,
            16384,
            65_537,
            1 << 40,
            u64::MAX,
        ] {
            for r in rates {
                let x = (bytes as f64) * (PS_PER_S as f64) / r;
                assert_eq!(transfer_time(bytes, r), x.ceil() as Ps, "{bytes} B at {r}");
            }
        }
        assert_eq!(transfer_time(1, 0.0), f64::INFINITY.ceil() as Ps);
    }

    #[test]
    fn transfer_rounds_up() {
        assert_eq!(transfer_time(4096, 1.024e9), 4 * PS_PER_US);
        assert_eq!(transfer_time(1, 1.2e9), 834);
        assert_eq!(ns(10.0), 10_000);
    }
}
