use lagoon_core::config::SsdConfig;
use lagoon_core::interconnect::Arch;
use lagoon_core::report::Report;
use lagoon_core::scenario::Scenario;

pub const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/");

pub fn trace(name: &str) -> String {
    format!("{TRACES}{name}")
}

/// A small drive (2 channels x 2 chips x 2 planes x 64 blocks x 16 pages of 4 KB) so GC
/// happens after a few thousand writes.
pub fn tiny() -> SsdConfig {
    let mut c = SsdConfig {
        name: "tiny".into(),
        ..SsdConfig::default()
    };
    c.flash.channels = 2;
    c.flash.chips_per_channel = 2;
    c.flash.blocks_per_plane = 64;
    c.flash.pages_per_block = 16;
    c.ftl.overprovisioning = 0.2;
    c.ftl.gc_threshold = 0.1;
    c.cache.capacity_bytes = 64 * 4096;
    c.validate().unwrap();
    c
}

pub fn run(cfg: &SsdConfig, arch: Arch, workloads: &[&str], seed: u64) -> Report {
    let mut s = Scenario::new(
        &cfg.name,
        cfg.clone(),
        arch,
        workloads.iter().map(|w| w.to_string()).collect(),
    );
    s.seed = seed;
    s.run(|_| {}).unwrap()
}
