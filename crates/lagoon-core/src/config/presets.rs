//! Published reference drives, shipped as TOML files in `presets/`.

use super::SsdConfig;

pub const NAMES: &[&str] = &["perf-optimized", "cost-optimized", "piq-ssdsim"];

const PERF: &str = include_str!("../../presets/perf-optimized.toml");
const COST: &str = include_str!("../../presets/cost-optimized.toml");
const PIQ: &str = include_str!("../../presets/piq-ssdsim.toml");

pub fn by_name(name: &str) -> Option<SsdConfig> {
    match name {
        "perf-optimized" => Some(perf_optimized()),
        "cost-optimized" => Some(cost_optimized()),
        "piq-ssdsim" => Some(piq_ssdsim()),
        _ => None,
    }
}

/// The TOML text of a preset (for `lagoon config show`).
pub fn text(name: &str) -> Option<&'static str> {
    match name {
        "perf-optimized" => Some(PERF),
        "cost-optimized" => Some(COST),
        "piq-ssdsim" => Some(PIQ),
        _ => None,
    }
}

/// Venice Table 1, performance-optimized (Z-NAND).
pub fn perf_optimized() -> SsdConfig {
    toml::from_str(PERF).expect("shipped preset perf-optimized.toml is valid")
}

/// Venice Table 1, cost-optimized (3D TLC).
pub fn cost_optimized() -> SsdConfig {
    SsdConfig::from_toml(COST, "presets/cost-optimized.toml")
        .expect("shipped preset cost-optimized.toml is valid")
}

/// The PIQ paper's SSDsim drive (§V-A).
pub fn piq_ssdsim() -> SsdConfig {
    SsdConfig::from_toml(PIQ, "presets/piq-ssdsim.toml")
        .expect("shipped preset piq-ssdsim.toml is valid")
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
    fn perf_preset_file_equals_builtin_defaults() {
        assert_eq!(perf_optimized(), SsdConfig::default());
    }
}
