//! Small drives for tests and examples, written once: the tiny drive GC reaches after a few
//! thousand writes.

use crate::config::SsdConfig;

/// 2 channels x 2 chips x 1 die x 2 planes, 64 blocks of 16 pages of 4 KB (1,024 pages per
/// plane), 20 % over-provisioning, GC below 10 % free blocks, a 64-page write buffer with
/// Lagoon's eager destage;
/// everything else as [`SsdConfig::default`].
pub fn tiny() -> SsdConfig {
    let mut c = SsdConfig {
        name: "tiny".into(),
        ..SsdConfig::default()
    };
    c.flash.channels = 2;
    c.flash.chips_per_channel = 2;
    c.flash.dies_per_chip = 1;
    c.flash.planes_per_die = 2;
    c.flash.blocks_per_plane = 64;
    c.flash.pages_per_block = 16;
    c.ftl.overprovisioning = 0.2;
    c.ftl.gc_threshold = 0.1;
    c.cache.capacity_bytes = 64 * 4096;
    // Eager destage: every buffered page is programmed, so tests of GC and scheduling see
    // their writes reach flash (MQSim's policy, the default, keeps rewrites in DRAM).
    c.cache.write_policy = crate::config::WritePolicyKind::Lagoon;
    c.validate().expect("the tiny drive is valid");
    c
}
