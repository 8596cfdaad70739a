//! `[cache]`: the controller's DRAM write-back data cache.

use super::declare::section;
use super::schema::{Range, RATE_MB_S, TIME_NS};

section! {
    /// DRAM write-back data cache in the controller.
    pub struct CacheConfig = "cache" {
        /// Cache user data in DRAM (validation/mqsim: on).
        enabled: bool = true;
        /// Cache capacity, bytes (validation/mqsim: 256 MB). Allocated as it fills: a large
        /// value costs memory only for pages a run caches.
        capacity_bytes: u64 = 256 * 1024 * 1024, "bytes", Range::int(0, 1 << 40);
        /// DRAM access latency charged per cache access (row activate + CAS), ns
        /// (validation/mqsim DRAM parameters: tRCD 13 + tCL 13 ns).
        dram_access_ns: f64 = 26.0, "ns", TIME_NS;
        /// DRAM bandwidth used to move request data in/out of the cache, MB/s (Venice is
        /// silent; Decoupled SSD, ISCA 2023, Table 1: DRAM = 8 GB/s).
        dram_mb_s: f64 = 8000.0, "MB/s", RATE_MB_S;
    }
}
