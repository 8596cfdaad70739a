//! Where a result comes from: the lagoon version, the commit it was built from and a hash of
//! the resolved configuration (SPEC §7). `lagoon run --json` and every reproduction file carry
//! it beside, never inside, the deterministic report (`Report::deterministic_json`, the golden
//! test and `bench/identical.sh` compare that part only).

use lagoon_core::config::SsdConfig;
use lagoon_core::report::Report;
use serde::Serialize;

/// The crate version, as `lagoon --version` prints it first.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit the binary was built from (`-dirty` when tracked files differed), or
/// "unknown" outside a checkout (build.rs).
pub const COMMIT: &str = env!("LAGOON_COMMIT");
/// `lagoon --version`: "0.1.0 (commit 1a2b...)".
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("LAGOON_COMMIT"),
    ")"
);

/// FNV-1a, 64 bits: a stable hash with no dependency, for telling configurations apart (not
/// for security).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The resolved configuration's hash: FNV-1a 64 of its JSON (every key, presets and `base`
/// resolved, in declaration order), as `fnv1a64:` and 16 hex digits.
pub fn config_hash(cfg: &SsdConfig) -> String {
    let json = serde_json::to_string(cfg).expect("a configuration serializes");
    format!("fnv1a64:{:016x}", fnv1a64(json.as_bytes()))
}

/// What `lagoon run --json` adds beside the report.
#[derive(Clone, Debug, Serialize)]
pub struct RunProvenance {
    pub lagoon: &'static str,
    pub commit: &'static str,
    /// [`config_hash`] of the drive the run simulated (after `--mesh`, `--design`, overrides).
    pub config_hash: String,
    /// The command line, or the Python call's `lagoon run` arguments.
    pub command: String,
    /// Stopped early by Ctrl-C: the report covers the requests completed by then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl RunProvenance {
    pub fn new(cfg: &SsdConfig, command: String) -> Self {
        Self {
            lagoon: VERSION,
            commit: COMMIT,
            config_hash: config_hash(cfg),
            command,
            interrupted: false,
        }
    }
}

/// The report as `lagoon run --json` writes it: every field of [`Report`] in its order,
/// then `provenance`.
pub fn report_json(report: &Report, provenance: &RunProvenance) -> String {
    #[derive(Serialize)]
    struct WithProvenance<'a> {
        #[serde(flatten)]
        report: &'a Report,
        provenance: &'a RunProvenance,
    }
    serde_json::to_string_pretty(&WithProvenance { report, provenance })
        .expect("a report serializes")
}

/// The command line this process was started with, arguments quoted where a shell needs it.
pub fn command_line() -> String {
    std::env::args()
        .enumerate()
        .map(|(i, a)| {
            let a = if i == 0 { "lagoon".to_string() } else { a };
            if a.is_empty()
                || a.chars()
                    .any(|c| c.is_whitespace() || "\"'$`\\|&;<>()*?!".contains(c))
            {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_its_reference_values() {
        // The FNV reference test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_hash_tells_configurations_apart_and_repeats() {
        let a = SsdConfig::load("perf-optimized").unwrap();
        let mut b = a.clone();
        assert_eq!(config_hash(&a), config_hash(&b));
        b.flash.read_ns += 1.0;
        assert_ne!(config_hash(&a), config_hash(&b));
        assert!(config_hash(&a).starts_with("fnv1a64:") && config_hash(&a).len() == 24);
    }
}
