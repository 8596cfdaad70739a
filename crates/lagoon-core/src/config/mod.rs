//! SSD configuration: serde structs that reject unknown keys (and a section written as
//! anything but a table), presets shipped as TOML files (`presets/*.toml`), and the checks
//! that name the offending key.
//!
//! Every key is declared once, with its type, unit, range, default and doc, by `section!`
//! (`declare.rs`) in the file of its section (`host.rs`, `flash.rs`, `ftl.rs`, `cache.rs`,
//! `precondition.rs`, `network.rs`, `energy.rs`, `controller.rs` for `[controller]` and
//! `[fnoc]`, `wear.rs`); `Default`, the range checks ([`schema`]), `lagoon config --keys` and
//! docs/CONFIG.md (`lagoon config --markdown`, [`docs`]) come from those declarations. Rules
//! across keys are in [`rules`], one function each. Every field has a documented unit in its
//! name. Defaults are the `perf-optimized` preset (Venice Table 1) so a user file only lists
//! what it changes.

use std::path::Path;

mod cache;
pub mod controller;
mod declare;
pub mod docs;
mod energy;
mod flash;
mod ftl;
mod host;
pub mod network;
mod precondition;
pub mod presets;
pub mod rules;
pub mod schema;
pub mod wear;

pub use cache::{CacheConfig, WritePolicyKind};
pub use controller::{ControllerConfig, Design, FnocConfig};
pub use energy::EnergyConfig;
pub use flash::{
    ChannelArbitration, CommandTiming, FlashConfig, Multiplane, OnfiTiming, Suspend, SuspendReads,
};
pub use ftl::{
    AllocationScheme, DieScheduling, DynamicMapping, FtlConfig, GcDestination, GcMappingUpdate,
    GcMode, GcPacing, GcPolicy, MappingConfig, WriteCompletion,
};
pub use host::HostInterfaceConfig;
pub use network::{
    ControllerAttach, NetworkConfig, RoutingKind, ScoutRetry, Switching, TopologyKind,
};
pub use precondition::{InvalidDistribution, PreconditionConfig, PreconditionMode};
pub use wear::{RbtPick, SuperblockMode, SuperblockWidth, WearConfig};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown SSD preset '{0}' (known presets: {1})")]
    UnknownPreset(String, String),
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    // The OS message is in the text, so it is not also a `source` (printed twice by `{:#}`).
    #[error("{path}: cannot read: {err}")]
    Io { path: String, err: std::io::Error },
    #[error("invalid configuration: {key} = {value}: {reason}")]
    Invalid {
        key: String,
        value: String,
        reason: String,
    },
}

declare::section! {
    /// The whole drive. Defaults are the perf-optimized preset;
    /// `presets/perf-optimized.toml` is tested equal to them.
    pub struct SsdConfig = "" {
        /// Free-form name shown in reports.
        name: String = "perf-optimized".into();
        /// NVMe over PCIe.
        host: HostInterfaceConfig = HostInterfaceConfig::default();
        /// Flash array geometry and timing.
        flash: FlashConfig = FlashConfig::default();
        /// Translation, GC, wear levelling, die scheduling.
        ftl: FtlConfig = FtlConfig::default();
        /// The controller's DRAM data cache.
        cache: CacheConfig = CacheConfig::default();
        /// State of the drive before the measured run.
        precondition: PreconditionConfig = PreconditionConfig::default();
        /// Networked back ends and the general network layer.
        network: NetworkConfig = NetworkConfig::default();
        /// Energy and area model.
        energy: EnergyConfig = EnergyConfig::default();
        /// The controller's system bus, DRAM and ECC as resources (dSSD; off by default).
        controller: ControllerConfig = ControllerConfig::default();
        /// dSSD_f's flash-controller network (used when `controller.design = "dssd_f"`).
        fnoc: FnocConfig = FnocConfig::default();
        /// Block endurance and superblock management (lifetime mode; no effect on timed runs).
        wear: WearConfig = WearConfig::default();
    }
}

impl SsdConfig {
    /// A preset name (see [`presets::NAMES`]) or a path to a TOML file.
    pub fn load(spec: &str) -> Result<Self, ConfigError> {
        if let Some(c) = presets::by_name(spec) {
            return Ok(c);
        }
        let p = Path::new(spec);
        if spec.ends_with(".toml") || p.exists() {
            return Self::from_file(p);
        }
        Err(ConfigError::UnknownPreset(
            spec.to_string(),
            presets::NAMES.join(", "),
        ))
    }

    /// Largest configuration file read.
    pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        use std::io::Read;
        let io = |err| ConfigError::Io {
            path: path.display().to_string(),
            err,
        };
        // Bounded: a config is a few KB; `--ssd /dev/zero` must not read forever.
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(Self::MAX_CONFIG_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        if text.len() as u64 > Self::MAX_CONFIG_BYTES {
            return Err(ConfigError::Parse {
                path: path.display().to_string(),
                message: format!(
                    "larger than {} bytes; not a configuration file",
                    Self::MAX_CONFIG_BYTES
                ),
            });
        }
        Self::from_toml(&text, &path.display().to_string())
    }

    /// Parse TOML. A file may start from a preset with `base = "cost-optimized"`.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, ConfigError> {
        let perr = |m: String| ConfigError::Parse {
            path: origin.to_string(),
            message: m,
        };
        let mut value: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| perr(e.to_string()))?;
        let base = match value.remove("base") {
            None => presets::perf_optimized(),
            Some(toml::Value::String(b)) => presets::by_name(&b)
                .ok_or_else(|| ConfigError::UnknownPreset(b.clone(), presets::NAMES.join(", ")))?,
            Some(other) => {
                return Err(perr(format!(
                    "key 'base' must be a preset name, found {other}"
                )))
            }
        };
        base.overlaid(value, origin)
    }

    /// `value`'s keys laid over this configuration, so omitted keys keep its values;
    /// validated. Errors name `origin`.
    fn overlaid(&self, value: toml::Table, origin: &str) -> Result<Self, ConfigError> {
        let perr = |m: String| ConfigError::Parse {
            path: origin.to_string(),
            message: m,
        };
        let mut merged = toml::Table::try_from(self).map_err(|e| perr(e.to_string()))?;
        overlay(&mut merged, value);
        let cfg: SsdConfig = toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| perr(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// This configuration with the keys of the TOML text `patch` (`"host.pcie_lanes = 16"`,
    /// sections and dotted keys alike) laid over it, validated as a file is; an error names
    /// `origin` and the key. A reproduction's sensitivity search reads the paper this way.
    pub fn patched(&self, patch: &str, origin: &str) -> Result<Self, ConfigError> {
        let perr = |m: String| ConfigError::Parse {
            path: origin.to_string(),
            message: m,
        };
        let value: toml::Table = patch
            .parse()
            .map_err(|e: toml::de::Error| perr(e.to_string()))?;
        self.overlaid(value, origin)
    }

    /// Every key against its declared range ([`schema`]), then the rules that tie keys of
    /// several sections together ([`rules::RULES`]); the first violation is returned, naming
    /// the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        schema::check_ranges(self)?;
        rules::RULES.iter().try_for_each(|r| (r.check)(self))
    }

    /// Physical pages of the flash array (each factor is bounded by the schema, so the
    /// product fits a `u64`).
    pub fn physical_pages(&self) -> u64 {
        let f = &self.flash;
        f.channels as u64
            * f.chips_per_channel as u64
            * f.dies_per_chip as u64
            * f.planes_per_die as u64
            * f.blocks_per_plane as u64
            * f.pages_per_block as u64
    }

    /// Up-front state the model allocates for this drive, bytes (a close upper estimate:
    /// per-block, per-plane and per-die tables, the translation directory and the mesh).
    /// Mapping entries and caches grow with what a run touches and are not counted, except
    /// under aged preconditioning, whose GC touches map chunks all over the logical space
    /// at once: there the whole mapping table is counted.
    pub fn model_state_bytes(&self) -> u64 {
        let aged_map = if self.precondition.mode != PreconditionMode::Sequential {
            self.logical_pages() * 4
        } else {
            0
        };
        self.preallocated_state_bytes() + aged_map
    }

    /// Logical pages: the physical ones less the over-provisioning.
    pub fn logical_pages(&self) -> u64 {
        (self.physical_pages() as f64 * (1.0 - self.ftl.overprovisioning)) as u64
    }

    /// The state allocated before a run whatever it touches; what grows (map chunks,
    /// reverse maps, the CMT and the data cache) the simulator measures as it runs against
    /// [`schema::model_state_limit`].
    pub fn preallocated_state_bytes(&self) -> u64 {
        let f = &self.flash;
        let planes = f.channels as u64
            * f.chips_per_channel as u64
            * f.dies_per_chip as u64
            * f.planes_per_die as u64;
        let blocks = planes * f.blocks_per_plane as u64;
        let dies = planes / f.planes_per_die as u64;
        let entries = (f.page_bytes / self.ftl.translation_entry_bytes.max(1)).max(1) as u64;
        let (rows, cols) = self.mesh_dims();
        let routers = rows as u64 * cols as u64;
        // Aged preconditioning's per-block layout.
        let aged = if self.precondition.mode != PreconditionMode::Sequential {
            blocks * 4
        } else {
            0
        };
        // Block record + free-list slot; plane allocator; die queues and state;
        // a translation-directory word per translation page (and, with a CMT, its generation
        // and dirty count); the L2P map's chunk table (a pointer per chunk); router and link
        // tables.
        let chunks = self.physical_pages() >> schema::L2P_CHUNK_BITS;
        let per_translation_page = match self.ftl.mapping {
            MappingConfig::Demand { .. } => 12,
            MappingConfig::Ideal => 4,
        };
        blocks * (32 + 4)
            + planes * 64
            + dies * 256
            + self.physical_pages() / entries * per_translation_page
            + chunks * 8
            + routers * 256
            + aged
    }

    /// The mapping state when every page has been written: a 4-byte map entry per logical
    /// page and a 4-byte reverse-map entry per physical page. A timed run grows toward it as
    /// it writes; lifetime mode allocates it up front.
    pub fn full_map_bytes(&self) -> u64 {
        self.logical_pages() * 4 + self.physical_pages() * 4
    }
}

impl SsdConfig {
    /// Mesh rows and columns after defaults.
    pub fn mesh_dims(&self) -> (u32, u32) {
        let r = if self.network.rows == 0 {
            self.flash.channels
        } else {
            self.network.rows
        };
        let c = if self.network.cols == 0 {
            self.flash.chips_per_channel
        } else {
            self.network.cols
        };
        (r, c)
    }

    /// Flash controllers on the mesh after defaults.
    pub fn mesh_controllers(&self) -> u32 {
        if self.network.controllers == 0 {
            self.mesh_dims().0
        } else {
            self.network.controllers
        }
    }
}

fn overlay(base: &mut toml::Table, user: toml::Table) {
    for (k, v) in user {
        match (base.get_mut(&k), v) {
            // A tagged enum (e.g. ftl.mapping) is replaced whole when its type changes.
            (Some(toml::Value::Table(b)), toml::Value::Table(u))
                if !(u.contains_key("type") && b.get("type") != u.get("type")) =>
            {
                overlay(b, u)
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_named() {
        let e = SsdConfig::from_toml("[flash]\nchanels = 4\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("my.toml") && e.contains("chanels"), "{e}");
    }

    #[test]
    fn overlay_keeps_preset_values() {
        let c = SsdConfig::from_toml(
            "base = \"cost-optimized\"\n[flash]\nchannels = 4\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(c.flash.channels, 4);
        assert_eq!(c.flash.page_bytes, 16384);
    }

    #[test]
    fn a_patch_changes_only_its_keys_and_an_unknown_key_is_named() {
        let base = presets::perf_optimized();
        let c = base.patched("host.pcie_lanes = 16", "reading").unwrap();
        assert_eq!(c.host.pcie_lanes, 16);
        let mut back = c.clone();
        back.host.pcie_lanes = base.host.pcie_lanes;
        assert_eq!(
            toml::Table::try_from(&back).unwrap(),
            toml::Table::try_from(&base).unwrap()
        );
        let e = base
            .patched("host.pcie_lane = 16", "reading")
            .unwrap_err()
            .to_string();
        assert!(e.contains("reading") && e.contains("pcie_lane"), "{e}");
        let e = base
            .patched("flash.planes_per_die = 0", "r")
            .unwrap_err()
            .to_string();
        assert!(e.contains("flash.planes_per_die"), "{e}");
    }

    #[test]
    fn impossible_geometry_is_named() {
        let e = SsdConfig::from_toml("[flash]\nplanes_per_die = 0\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("flash.planes_per_die"), "{e}");
        let e = SsdConfig::from_toml("[ftl]\noverprovisioning = 0.0\n", "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("ftl.overprovisioning"), "{e}");
    }

    #[test]
    fn every_listed_choice_parses_and_a_wrong_word_names_its_key() {
        let keys = SsdConfig::default().choice_keys();
        assert!(keys.len() >= 25, "{} choice keys", keys.len());
        for k in &keys {
            let (section, leaf) = k.key.rsplit_once('.').unwrap();
            for c in &k.choices {
                let text = format!("[{section}]\n{leaf} = \"{c}\"\n");
                // Some words need other keys (a custom topology its file): only a word the
                // parser rejects as a word is a wrong list.
                if let Err(e) = SsdConfig::from_toml(&text, "c.toml") {
                    assert!(
                        !e.to_string().contains("unknown variant"),
                        "{}: {c}: {e}",
                        k.key
                    );
                }
            }
            let bad = format!("[{section}]\n{leaf} = \"nonsense\"\n");
            let e = SsdConfig::from_toml(&bad, "c.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains("c.toml") && e.contains(leaf), "{}: {e}", k.key);
        }
    }

    #[test]
    fn energy_keys_parse_and_are_named_in_errors() {
        let c =
            SsdConfig::from_toml("[energy]\nlink_mw = 2.5\nstatic_mw = 0.0\n", "e.toml").unwrap();
        assert_eq!(c.energy.link_mw, 2.5);
        assert_eq!(c.energy.static_mw, 0.0);
        // Keys not given keep the preset's values.
        assert_eq!(c.energy.router_mw, 0.241);
        assert_eq!(c.energy.bus_mw, 10.8);
        let e = SsdConfig::from_toml("[energy]\nlink_mW = 2.5\n", "e.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("e.toml") && e.contains("link_mW"), "{e}");
        let e = SsdConfig::from_toml("[energy]\nrouter_mw = -1.0\n", "e.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("energy.router_mw"), "{e}");
        let e = SsdConfig::from_toml("[energy]\nflash_chip_area_mm2 = 0.0\n", "e.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("energy.flash_chip_area_mm2"), "{e}");
    }

    #[test]
    fn unknown_preset_lists_known() {
        let e = SsdConfig::load("perf-optimised").unwrap_err().to_string();
        assert!(e.contains("perf-optimized"), "{e}");
    }

    /// Every table, as TOML text that sets it to `value` (`[flash]\nonfi = 3` for flash.onfi).
    fn every_table_set_to(value: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        schema::walk(&SsdConfig::default(), &mut |t, _| {
            let name = t.name();
            let text = match name.rsplit_once('.') {
                None => format!("{name} = {value}\n"),
                Some((parent, leaf)) => format!("[{parent}]\n{leaf} = {value}\n"),
            };
            if !name.is_empty() {
                out.push((name.to_string(), text));
            }
        });
        out
    }

    /// Issue 32: TOML maps an array onto a struct's fields by position (`flash = [2, 4]` made a
    /// 2x4 drive); a section is a table or an error that names it.
    #[test]
    fn a_section_written_as_anything_but_a_table_is_refused_by_name() {
        let tables = every_table_set_to("[2, 4]");
        assert_eq!(tables.len(), 12, "every section and sub-table");
        for value in ["[2, 4]", "[]", "3", "\"flash\"", "true"] {
            for (name, text) in every_table_set_to(value) {
                let e = SsdConfig::from_toml(&text, "t.toml")
                    .unwrap_err()
                    .to_string();
                assert!(
                    e.contains("t.toml") && e.contains(&format!("[{name}]")) && e.contains("table"),
                    "{text}: {e}"
                );
            }
        }
        // An inline table is a table.
        let c = SsdConfig::from_toml("flash = { channels = 4 }\n", "t.toml").unwrap();
        assert_eq!((c.flash.channels, c.flash.chips_per_channel), (4, 8));
        let c = SsdConfig::from_toml("[ftl]\nmapping = { type = \"ideal\" }\n", "t.toml").unwrap();
        assert_eq!(c.ftl.mapping, MappingConfig::Ideal);
    }

    /// A Python dict goes through TOML text to `from_toml` (lagoon-py `drive::load`): a list
    /// for a section is refused as in a file.
    #[test]
    fn a_dict_with_a_list_for_a_section_is_refused_by_name() {
        let mut dict = toml::Table::new();
        dict.insert("base".into(), "cost-optimized".into());
        dict.insert("flash".into(), toml::Value::Array(vec![2.into(), 4.into()]));
        let text = toml::to_string(&dict).unwrap();
        let e = SsdConfig::from_toml(&text, "configuration dict")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("configuration dict") && e.contains("[flash]"),
            "{e}"
        );
    }

    /// `[fnoc]`'s router keys are `[network]`'s declarations (`router!`), defaults aside.
    #[test]
    fn fnoc_router_keys_are_the_network_declarations() {
        use schema::Section;
        let shared = [
            "topology",
            "routing",
            "switching",
            "vcs",
            "flit_bytes",
            "packet_flits",
            "input_buffer_bytes",
            "output_buffer_bytes",
            "link_latency_ns",
        ];
        for name in shared {
            let n = NetworkConfig::PARAMS
                .iter()
                .find(|p| p.name == name)
                .unwrap();
            let f = FnocConfig::PARAMS.iter().find(|p| p.name == name).unwrap();
            assert_eq!((n.unit, n.kind), (f.unit, f.kind), "{name}");
            assert_eq!(format!("{:?}", n.range), format!("{:?}", f.range), "{name}");
            // The shared doc first; each section adds where its default comes from.
            let first = |d: &'static str| d.lines().next().unwrap_or("");
            assert_eq!(first(n.doc), first(f.doc), "{name}");
        }
    }

    #[test]
    fn words_come_from_serde_including_tagged_enums_and_aliases() {
        assert_eq!(schema::words_of::<MappingConfig>(), ["ideal", "demand"]);
        assert_eq!(
            schema::words_of::<Design>(),
            ["baseline", "bw", "dssd", "dssd_b", "dssd_f"]
        );
        assert!(schema::words_of::<SuperblockMode>().contains(&"baseline"));
        assert!(schema::words_of::<SuperblockMode>().contains(&"static"));
    }

    /// The `name()` some word enums carry for reports and flags is the word a file takes.
    #[test]
    fn enum_names_are_their_words() {
        fn word<T: serde::Serialize>(v: T) -> String {
            toml::Value::try_from(v)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        }
        for &v in TopologyKind::ALL {
            assert_eq!(word(v), v.name());
        }
        for &v in RoutingKind::ALL {
            assert_eq!(word(v), v.name());
        }
        for &v in Switching::ALL {
            assert_eq!(word(v), v.name());
        }
        for v in Design::ALL {
            assert_eq!(word(v), v.name());
        }
        for v in RbtPick::ALL {
            assert_eq!(word(v), v.name());
        }
        // `baseline` is an alias: the figures' name for static superblocks.
        for v in SuperblockMode::ALL {
            assert!(schema::words_of::<SuperblockMode>().contains(&v.name()));
        }
    }
}
