//! Published reference drives, shipped as TOML files in `presets/`.

use super::SsdConfig;

/// Every preset by name, in the order help texts list them.
pub const NAMES: &[&str] = &[
    "perf-optimized",
    "cost-optimized",
    "perf-optimized-32gbs",
    "cost-optimized-32gbs",
    "piq-ssdsim",
    "mqsimnet",
    "dssd-ull",
    "dssd-tlc",
    "dssd-superblock",
];

/// (name, TOML text) of every preset; the first is the base of the others.
const PRESETS: &[(&str, &str)] = &[
    (
        "perf-optimized",
        include_str!("../../presets/perf-optimized.toml"),
    ),
    (
        "cost-optimized",
        include_str!("../../presets/cost-optimized.toml"),
    ),
    (
        "perf-optimized-32gbs",
        include_str!("../../presets/perf-optimized-32gbs.toml"),
    ),
    (
        "cost-optimized-32gbs",
        include_str!("../../presets/cost-optimized-32gbs.toml"),
    ),
    ("piq-ssdsim", include_str!("../../presets/piq-ssdsim.toml")),
    ("mqsimnet", include_str!("../../presets/mqsimnet.toml")),
    ("dssd-ull", include_str!("../../presets/dssd-ull.toml")),
    ("dssd-tlc", include_str!("../../presets/dssd-tlc.toml")),
    (
        "dssd-superblock",
        include_str!("../../presets/dssd-superblock.toml"),
    ),
];

pub fn by_name(name: &str) -> Option<SsdConfig> {
    let text = text(name)?;
    Some(if name == "perf-optimized" {
        // The base of every other preset: a complete file, parsed without a base.
        toml::from_str(text).expect("shipped preset perf-optimized.toml is valid")
    } else {
        SsdConfig::from_toml(text, &format!("presets/{name}.toml"))
            .unwrap_or_else(|e| panic!("shipped preset {name}.toml is valid: {e}"))
    })
}

/// The TOML text of a preset (for `lagoon config`).
pub fn text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.1)
}

/// Venice Table 1, performance-optimized (Z-NAND).
pub fn perf_optimized() -> SsdConfig {
    by_name("perf-optimized").expect("listed")
}

/// Venice Table 1, cost-optimized (3D TLC).
pub fn cost_optimized() -> SsdConfig {
    by_name("cost-optimized").expect("listed")
}

/// The PIQ paper's SSDsim drive (§V-A).
pub fn piq_ssdsim() -> SsdConfig {
    by_name("piq-ssdsim").expect("listed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_venice_table1() {
        let p = perf_optimized();
        p.validate().unwrap();
        let f = &p.flash;
        assert_eq!(
            (
                f.channels,
                f.chips_per_channel,
                f.dies_per_chip,
                f.planes_per_die
            ),
            (8, 8, 1, 2)
        );
        assert_eq!(
            (f.blocks_per_plane, f.pages_per_block, f.page_bytes),
            (1024, 768, 4096)
        );
        assert_eq!(
            (f.read_ns, f.program_ns, f.erase_ns),
            (3_000.0, 100_000.0, 1_000_000.0)
        );
        assert_eq!(f.channel_mb_s, 1200.0);
        let c = cost_optimized();
        let f = &c.flash;
        assert_eq!(
            (f.page_bytes, f.blocks_per_plane * f.planes_per_die),
            (16384, 1024)
        );
        assert_eq!(
            (f.read_ns, f.program_ns, f.erase_ns),
            (45_000.0, 650_000.0, 3_500_000.0)
        );
        assert_eq!(c.name, "cost-optimized");
    }

    #[test]
    fn piq_preset_matches_the_papers_setup() {
        let c = piq_ssdsim();
        let f = &c.flash;
        assert_eq!((f.channels, f.chips_per_channel), (8, 8));
        assert_eq!((f.page_bytes, f.pages_per_block), (2048, 64));
        let bytes = (f.channels * f.chips_per_channel * f.dies_per_chip * f.planes_per_die) as u64
            * f.blocks_per_plane as u64
            * f.pages_per_block as u64
            * f.page_bytes as u64;
        assert_eq!(bytes, 128 << 30, "128 GB");
        assert_eq!(c.ftl.overprovisioning, 0.10);
    }

    #[test]
    fn every_listed_preset_loads_and_validates() {
        assert_eq!(NAMES.len(), PRESETS.len());
        for (name, (listed, _)) in NAMES.iter().zip(PRESETS) {
            assert_eq!(name, listed);
            by_name(name).unwrap().validate().unwrap();
        }
    }

    /// The hypothesis behind the paper's speed-ups (issue 10): Table 1's "8 GB/s" read as
    /// MQSim's per-lane bandwidth, 32 GB/s over 4 lanes; nothing else differs.
    #[test]
    fn lifted_link_presets_differ_only_in_the_host_link() {
        for (base, lifted) in [
            ("perf-optimized", "perf-optimized-32gbs"),
            ("cost-optimized", "cost-optimized-32gbs"),
        ] {
            let mut a = by_name(base).unwrap();
            let b = by_name(lifted).unwrap();
            assert_eq!(b.host.pcie_lane_gb_s * b.host.pcie_lanes as f64, 32.0);
            a.host.pcie_lane_gb_s = b.host.pcie_lane_gb_s;
            a.name = b.name.clone();
            assert_eq!(a, b);
        }
    }

    /// Each preset arbitrates a shared channel as the simulator its paper used: MQSim (Venice,
    /// MQSimNet) serves read data-outs first, SSDsim (PIQ) read commands first; SimpleSSD
    /// (dSSD) reserves a timeline, which ready order stands in for.
    #[test]
    fn channel_arbitration_follows_each_papers_simulator() {
        use crate::config::ChannelArbitration::{CommandFirst, DataOutFirst, Fifo};
        for (name, want) in [
            ("perf-optimized", DataOutFirst),
            ("cost-optimized", DataOutFirst),
            ("perf-optimized-32gbs", DataOutFirst),
            ("cost-optimized-32gbs", DataOutFirst),
            ("mqsimnet", DataOutFirst),
            ("piq-ssdsim", CommandFirst),
            ("dssd-ull", Fifo),
            ("dssd-tlc", Fifo),
            ("dssd-superblock", Fifo),
        ] {
            assert_eq!(
                by_name(name).unwrap().flash.channel_arbitration,
                want,
                "{name}"
            );
        }
        assert_eq!(NAMES.len(), 9, "a new preset is listed above");
    }

    #[test]
    fn perf_preset_file_equals_builtin_defaults() {
        assert_eq!(perf_optimized(), SsdConfig::default());
    }
}
