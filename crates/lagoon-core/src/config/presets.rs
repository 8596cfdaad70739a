//! Published reference drives, shipped as TOML files in `presets/`.

use super::SsdConfig;

pub const NAMES: &[&str] = &["perf-optimized", "cost-optimized"];

const PERF: &str = include_str!("../../presets/perf-optimized.toml");
const COST: &str = include_str!("../../presets/cost-optimized.toml");

pub fn by_name(name: &str) -> Option<SsdConfig> {
    match name {
        "perf-optimized" => Some(perf_optimized()),
        "cost-optimized" => Some(cost_optimized()),
        _ => None,
    }
}

/// The TOML text of a preset (for `lagoon config show`).
pub fn text(name: &str) -> Option<&'static str> {
    match name {
        "perf-optimized" => Some(PERF),
        "cost-optimized" => Some(COST),
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
    fn perf_preset_file_equals_builtin_defaults() {
        assert_eq!(perf_optimized(), SsdConfig::default());
    }
}
