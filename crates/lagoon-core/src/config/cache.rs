//! `[cache]`: the controller's DRAM write-back data cache.

use super::declare::section;
use super::schema::{word_keys, Range, RATE_MB_S, TIME_NS};
use serde::{Deserialize, Serialize};

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
        /// When a buffered page is programmed and when writes wait (docs/MODEL.md): `lagoon`
        /// (every newly buffered page at once; writes wait when every slot awaits its program)
        /// or `mqsim` (MQSim's Data_Cache_Manager_Flash_Advanced: a page's first write in each
        /// `hot_window_ms` goes to flash, rewrites stay in an LRU of pages until evicted; writes
        /// wait while a page per plane of write-back is in flight).
        write_policy: WritePolicyKind = WritePolicyKind::Mqsim;
        /// `mqsim`: the window of first writes (MQSim's bloom_filter_reset_step, 1 s,
        /// Data_Cache_Manager_Flash_Advanced.h 57).
        hot_window_ms: f64 = 1000.0, "ms", Range::above(0.0, 1e9);
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicyKind {
    Lagoon,
    Mqsim,
}

word_keys!(WritePolicyKind);
