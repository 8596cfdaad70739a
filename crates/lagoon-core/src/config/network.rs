//! `[network]`: the networked back ends' mesh (pnSSD, NoSSD, Venice) and the general network
//! layer ([`crate::interconnect::network`], issue 11; MQSimNet §III, Table I): which topology,
//! routing function and switching mode, and how big the topology is. The router keys it
//! shares with `[fnoc]` are declared once, in `router!`.
//!
//! Topology × routing × switching are orthogonal keys. Which routing functions a topology
//! provides, and how many virtual-channel (VC) classes each needs to be deadlock-free, is the
//! declarative table [`vc_plan`]; the routing functions partition their VCs by it, so the
//! rule in `rules.rs` and the code that routes cannot disagree.

use super::declare::section;
use super::schema::{word_keys, Range};
use super::{schema::key_error as invalid, ConfigError, SsdConfig};
use serde::{Deserialize, Serialize};

/// The nine router keys `[network]` and `[fnoc]` share: doc, type, unit and range declared
/// once here; a section takes one with its own default as `router::vcs = 2;` in its
/// `section!`, and doc lines above that (the default's source) are added to these.
macro_rules! router {
    (topology [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Topology, sized from the flash array unless told.
            $($doc)* topology: TopologyKind = $default;
        ] $($cont)*);
    };
    (routing [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Routing function; not every one is provided on every topology (one error names
            /// both).
            $($doc)* routing: RoutingKind = $default;
        ] $($cont)*);
    };
    (switching [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Switching and flow control.
            $($doc)* switching: Switching = $default;
        ] $($cont)*);
    };
    (vcs [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Virtual channels per port.
            $($doc)* vcs: u32 = $default, "virtual channels per port", Range::int(1, 64);
        ] $($cont)*);
    };
    (flit_bytes [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Flit size, bytes.
            $($doc)* flit_bytes: u32 = $default, "bytes", Range::int(1, 65_536);
        ] $($cont)*);
    };
    (packet_flits [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Largest packet, flits; longer messages are cut into packets.
            $($doc)* packet_flits: u32 = $default, "flits", Range::int(1, 1 << 20);
        ] $($cont)*);
    };
    (input_buffer_bytes [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Input buffer per router port, bytes, split evenly over its VCs.
            $($doc)* input_buffer_bytes: u32 = $default, "bytes per port", Range::int(1, 1 << 24);
        ] $($cont)*);
    };
    (output_buffer_bytes [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Output buffer per router port, bytes, split evenly over its VCs. 0: an
            /// input-queued router, the link taking flits straight from the input VC.
            $($doc)* output_buffer_bytes: u32 = $default,
                "bytes per port (0: an input-queued router)", Range::int(0, 1 << 24);
        ] $($cont)*);
    };
    (link_latency_ns [$($doc:tt)*] $default:expr; $($cont:tt)*) => {
        $crate::config::declare::section!(@shared [
            /// Propagation delay of a link (and of a credit coming back over it), ns.
            $($doc)* link_latency_ns: f64 = $default, "ns", Range::real(0.0, 1e6);
        ] $($cont)*);
    };
}
pub(crate) use router;

section! {
    /// Networked back ends (pnSSD, NoSSD, Venice): the mesh of flash nodes and its links.
    /// The chip array is laid out row-major on a `rows` × `cols` mesh (chip = channel ×
    /// chips_per_channel + way); flash controller *i* attaches to the first router of row
    /// *i* × rows / controllers.
    pub struct NetworkConfig = "network" {
        /// Mesh rows; 0 = `flash.channels` (Venice Table 1: 8 × 8).
        rows: u32 = 0, "routers, 0 = flash.channels", Range::int(0, 4096);
        /// Mesh columns; 0 = `flash.chips_per_channel`.
        cols: u32 = 0, "routers, 0 = flash.chips_per_channel", Range::int(0, 4096);
        /// Flash controllers on the mesh edge; 0 = one per row (Venice Fig. 8: FCs on the mesh
        /// edge).
        controllers: u32 = 0, "0 = one per row", Range::int(0, 4096);
        /// Link width, bytes (Venice Table 1: 8-bit links).
        link_width_bytes: u32 = 1, "bytes", Range::int(1, 1024);
        /// Time to move one link width over one link, ns (Venice Table 1: 1 GHz). At least
        /// 1 ps, the clock's resolution.
        link_cycle_ns: f64 = 1.0, "ns", Range::real(0.001, 1e6);
        /// Router decision time per scout hop, in link cycles (a 1 GHz router deciding in one
        /// cycle; Venice is silent).
        router_delay_cycles: u32 = 1, "link cycles", Range::int(0, 1_000_000);
        /// Scout packet length in flits (Venice §4.2, Fig. 6: header + tail).
        scout_flits: u32 = 2, "flits", Range::int(1, 1024);
        /// Times a scout may visit one router before it must back off (Venice §4.3: 3); 0 would
        /// turn every scout back at its first router.
        max_router_visits: u32 = 3, "visits", Range::int(1, 255);
        /// Bytes of a flash command with its address on a link (ONFI read: 00h, 5 address
        /// cycles, 30h).
        command_bytes: u32 = 7, "bytes", Range::int(1, 4096);
        /// When a Venice scout that came back in cancel mode is re-sent (docs/MODEL.md).
        scout_retry: ScoutRetry = ScoutRetry::OnRelease;
        /// NoSSD router input buffer per port, bytes (Venice §3.2: 16 KB); also the largest packet.
        nossd_buffer_bytes: u32 = 16384, "bytes", Range::int(64, 1 << 24);
        /// NoSSD link rate, MB/s; 0 = the flash channel rate (the chip's I/O pins).
        nossd_link_mb_s: f64 = 0.0, "MB/s, 0 = flash.channel_mb_s", Range::real(0.0, 1e8);
        /// Simulator speed only: handle a scout's next hop at once when no other event can come
        /// first. Results are identical either way (tested).
        lookahead: bool = true;
        // The general network layer (`interconnect::network`, issue 11; MQSimNet Table I). Its
        // link is `link_width_bytes` wide at `link_cycle_ns`; a router's pipeline takes
        // `router_delay_cycles`. Keys below are unused by the pnssd, nossd and venice back ends.
        /// Default: a 2D mesh (Venice Table 1, NoSSD).
        router::topology = TopologyKind::Mesh;
        router::routing = RoutingKind::Dor;
        router::switching = Switching::Wormhole;
        /// Default: MQSimNet Table I.
        router::vcs = 2;
        /// Default: MQSimNet Table I, 64 B.
        router::flit_bytes = 64;
        /// Default: MQSimNet Table I.
        router::packet_flits = 512;
        /// Default: MQSimNet Table I, 6 KB.
        router::input_buffer_bytes = 6 * 1024;
        /// Default: MQSimNet Table I, 8 KB.
        router::output_buffer_bytes = 8 * 1024;
        /// Default: MQSimNet Table I, 1 ns network channel latency.
        router::link_latency_ns = 1.0;
        /// Routers per dimension for line / ring ([k]) and mesh3d ([x, y, z]); hypercube: [n] for
        /// 2^n routers. Empty: sized from the flash array (a 2D mesh or torus uses rows x cols).
        dims: Vec<u32> = Vec::new();
        /// Dragonfly routers per group; `dragonfly_a`, `_h` and `_p` all 0 = the smallest
        /// balanced dragonfly (a = 2p, h = p) holding every chip (Kim et al., ISCA 2008).
        dragonfly_a: u32 = 0, "routers per group, 0 = sized", Range::int(0, 256);
        /// Dragonfly global links per router (0: sized, as `dragonfly_a`).
        dragonfly_h: u32 = 0, "global links per router, 0 = sized", Range::int(0, 256);
        /// Dragonfly endpoints per router (0: sized, as `dragonfly_a`).
        dragonfly_p: u32 = 0, "endpoints per router, 0 = sized", Range::int(0, 256);
        /// File of a custom topology (routers, links, attachments; `config::network::CustomTopology`).
        custom_topology: String = String::new();
        /// Where the flash controllers attach: edge (Venice: one per row, west edge) | spread.
        controller_attach: ControllerAttach = ControllerAttach::Edge;
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ScoutRetry {
    /// At once (Venice §4.2, literally): under saturation a controller may send thousands of
    /// scouts into an unchanged network per transfer.
    Immediate,
    /// At once if a circuit was released since the failed scout left (or none is held), else
    /// at the next circuit release; and not at all while a bitset search finds no free path
    /// (counted as a failed scout). A failed scout's backtracking search tries every free link
    /// reachable from its controller, so a re-send before any circuit ends mostly fails again.
    /// Differs from `Immediate` in that futile scouts no longer block others (docs/MODEL.md).
    OnRelease,
}

/// `network.topology`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    /// 1D mesh.
    Line,
    /// 1D torus.
    Ring,
    /// 2D mesh, `rows` × `cols` (Venice Table 1, NoSSD).
    Mesh,
    /// 2D torus, `rows` × `cols`.
    Torus,
    /// 3D mesh.
    Mesh3d,
    /// Binary n-cube.
    Hypercube,
    /// Groups of `a` routers joined all-to-all, `h` global links per router, `p` endpoints per
    /// router (Kim et al., ISCA 2008).
    Dragonfly,
    /// One router that every endpoint attaches to.
    Crossbar,
    /// Routers, links and attachments read from `network.custom_topology`.
    Custom,
}

/// `network.routing`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingKind {
    /// Dimension order (XY, e-cube), dateline VC classes on wrap-around links.
    Dor,
    /// Any productive port, on monotone virtual networks (meshes, hypercube) or by global
    /// hops (dragonfly).
    MinimalAdaptive,
    /// Duato's fully adaptive routing: adaptive VCs on any minimal port plus escape VCs
    /// routed by dimension order.
    Duato,
    /// Valiant's randomised routing through an intermediate dragonfly group.
    Valiant,
    /// UGAL-L: minimal or Valiant, chosen at the source router by queue length × hops.
    Ugal,
    /// Shortest legal up*/down* paths from tables (any topology, custom ones included).
    Table,
    /// Venice's Algorithm 1 as the circuit set-up: scouts reserve links hop by hop,
    /// non-minimal and fully adaptive, backtracking when blocked (Venice §4.2-4.3). 2D mesh,
    /// circuit switching.
    Venice,
}

/// `network.switching`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Switching {
    /// A probe reserves the path, an acknowledgement returns, then the data flows.
    Circuit,
    /// Store-and-forward: a router forwards a packet once all of it has arrived.
    Saf,
    /// Virtual cut-through: a packet advances only into a buffer with room for all of it.
    Vct,
    /// Wormhole: flits advance as buffer space frees up, one flit at a time.
    Wormhole,
}

/// `network.controller_attach`: where the flash controllers join the network.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ControllerAttach {
    /// On the west edge, one per row (Venice Fig. 5, NoSSD): controller i on the first router
    /// of row i × rows / controllers of a mesh or torus; the x = 0 face of a 3D mesh; spread
    /// over the routers where a topology has no edge (ring, hypercube, dragonfly, crossbar).
    Edge,
    /// Controller i on router ⌊i × routers / controllers⌋.
    Spread,
}

/// `name()` (the TOML spelling) and `Display` for the unit-variant key enums.
macro_rules! names {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            pub const ALL: &'static [$t] = &[$(<$t>::$v),*];
            pub fn name(self) -> &'static str {
                match self { $(<$t>::$v => $s),* }
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
names!(TopologyKind { Line => "line", Ring => "ring", Mesh => "mesh", Torus => "torus",
    Mesh3d => "mesh3d", Hypercube => "hypercube", Dragonfly => "dragonfly",
    Crossbar => "crossbar", Custom => "custom" });
names!(RoutingKind { Dor => "dor", MinimalAdaptive => "minimal-adaptive", Duato => "duato",
    Valiant => "valiant", Ugal => "ugal", Table => "table", Venice => "venice" });
names!(Switching { Circuit => "circuit", Saf => "saf", Vct => "vct", Wormhole => "wormhole" });
word_keys!(
    TopologyKind,
    RoutingKind,
    Switching,
    ControllerAttach,
    ScoutRetry
);

impl RoutingKind {
    /// Whether the layer's packet and probe engine runs this function (`lagoon net`, the
    /// router model); `venice` sets up circuits with the layer's scout switching
    /// (`network/switching/scout`), which only the SSD back end runs.
    pub fn routes_packets(self) -> bool {
        self != RoutingKind::Venice
    }
}

/// A topology's size after defaults: what the topology module builds.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// k-ary n-cube family: routers per dimension (dimension 0 varies fastest: x = column),
    /// wrap-around links, and binary (hypercube: one port per dimension).
    Cube {
        sizes: Vec<u32>,
        wrap: bool,
        binary: bool,
    },
    Dragonfly {
        a: u32,
        h: u32,
        p: u32,
    },
    Crossbar,
    Custom(CustomTopology),
}

impl Shape {
    pub fn routers(&self) -> u64 {
        match self {
            Shape::Cube { sizes, .. } => sizes.iter().map(|&s| s as u64).product(),
            Shape::Dragonfly { a, h, .. } => *a as u64 * (*a as u64 * *h as u64 + 1),
            Shape::Crossbar => 1,
            Shape::Custom(c) => c.routers as u64,
        }
    }
}

/// A custom topology file (`network.custom_topology`), TOML:
///
/// ```toml
/// routers = 4
/// links = [[0, 1], [1, 2], [2, 3], [3, 0]]   # undirected router-to-router links
/// chips = [0, 1, 2, 3]                        # router of each flash chip (default: i mod routers)
/// controllers = [0]                           # router of each controller (default: spread)
/// ```
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomTopology {
    pub routers: u32,
    pub links: Vec<[u32; 2]>,
    #[serde(default)]
    pub chips: Vec<u32>,
    #[serde(default)]
    pub controllers: Vec<u32>,
}

/// The file as written: each link a list, checked to be a pair (`[0, 1, 7]` was read as
/// `[0, 1]`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCustom {
    routers: u32,
    links: Vec<Vec<u32>>,
    #[serde(default)]
    chips: Vec<u32>,
    #[serde(default)]
    controllers: Vec<u32>,
}

impl RawCustom {
    fn pairs(self) -> Result<CustomTopology, String> {
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| match l[..] {
                [a, b] => Ok([a, b]),
                _ => Err(format!(
                    "links entry {} = {l:?}: a link is a pair of routers, [a, b]",
                    i + 1
                )),
            })
            .collect::<Result<_, _>>()?;
        Ok(CustomTopology {
            routers: self.routers,
            links,
            chips: self.chips,
            controllers: self.controllers,
        })
    }
}

/// Largest custom topology file read.
const MAX_CUSTOM_BYTES: u64 = 1 << 20;

impl CustomTopology {
    /// Read and check a custom topology file; errors name `network.custom_topology`.
    pub fn load(path: &str) -> Result<Self, ConfigError> {
        use std::io::Read;
        let key = "network.custom_topology";
        if path.is_empty() {
            return Err(invalid(
                key,
                "\"\"",
                "network.topology = custom needs a file of routers and links",
            ));
        }
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_CUSTOM_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| invalid(key, path, format!("cannot read: {e}")))?;
        if text.len() as u64 > MAX_CUSTOM_BYTES {
            return Err(invalid(key, path, "larger than 1 MiB"));
        }
        let raw: RawCustom =
            toml::from_str(&text).map_err(|e| invalid(key, path, e.to_string()))?;
        let t = raw.pairs().map_err(|m| invalid(key, path, m))?;
        t.check().map_err(|m| invalid(key, path, m))?;
        Ok(t)
    }

    /// The file's lists against the drive: at most one router per flash chip (`chips`) and
    /// per flash controller (`controllers`); entries past those were silently unused.
    pub fn check_attachments(&self, chips: u32, controllers: u32) -> Result<(), String> {
        for (name, list, n, what) in [
            (
                "chips",
                &self.chips,
                chips,
                "flash chips (flash.channels x flash.chips_per_channel)",
            ),
            (
                "controllers",
                &self.controllers,
                controllers,
                "flash controllers (network.controllers, 0 = one per mesh row)",
            ),
        ] {
            if list.len() > n as usize {
                return Err(format!(
                    "{name} lists {} routers but the drive has {n} {what}; give at most {n}",
                    list.len()
                ));
            }
        }
        Ok(())
    }

    fn check(&self) -> Result<(), String> {
        if self.routers == 0 || self.routers > 4096 {
            return Err(format!("routers = {} must be in 1..=4096", self.routers));
        }
        let n = self.routers;
        for &[a, b] in &self.links {
            if a >= n || b >= n || a == b {
                return Err(format!(
                    "link [{a}, {b}] must join two different routers below {n}"
                ));
            }
        }
        if let Some(&r) = self
            .chips
            .iter()
            .chain(&self.controllers)
            .find(|&&r| r >= n)
        {
            return Err(format!(
                "attachment to router {r}, but there are {n} routers"
            ));
        }
        // Connected: every router reachable from router 0.
        let mut adj = vec![Vec::new(); n as usize];
        for &[a, b] in &self.links {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        let mut seen = vec![false; n as usize];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(r) = stack.pop() {
            for &m in &adj[r as usize] {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    stack.push(m);
                }
            }
        }
        if let Some(r) = seen.iter().position(|s| !s) {
            return Err(format!("router {r} is not connected to router 0"));
        }
        Ok(())
    }
}

/// VC classes a routing function needs: `classes` deterministic (or escape) classes, plus one
/// or more adaptive VCs when `adaptive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcPlan {
    pub classes: u32,
    pub adaptive: bool,
}

impl VcPlan {
    pub fn min_vcs(&self) -> u32 {
        self.classes + self.adaptive as u32
    }
}

/// The table of provided routing functions per topology and the VC classes each needs to be
/// deadlock-free by construction; `Err` says why a pair is not provided. `ndims` is the
/// number of dimensions of a cube topology.
pub fn vc_plan(topology: TopologyKind, routing: RoutingKind, ndims: u32) -> Result<VcPlan, String> {
    use RoutingKind as R;
    use TopologyKind as T;
    let plan = |classes, adaptive| Ok(VcPlan { classes, adaptive });
    let wrap = matches!(topology, T::Ring | T::Torus);
    match (topology, routing) {
        (_, R::Table) => plan(1, false),
        // Circuits hold whole links, so no VC classes are needed (Venice §4.2).
        (T::Mesh, R::Venice) => plan(1, false),
        (_, R::Venice) => Err(
            "Venice's Algorithm 1 routes by a 2D mesh's coordinates; use network.topology = mesh".into(),
        ),
        (T::Custom, _) => Err("a custom topology has no coordinates; use routing = table".into()),
        (T::Crossbar, R::Dor | R::MinimalAdaptive | R::Duato) => plan(1, false),
        // Dateline: class 0 before the wrap-around link, class 1 after it.
        (T::Line | T::Ring | T::Mesh | T::Torus | T::Mesh3d | T::Hypercube, R::Dor) => {
            plan(if wrap { 2 } else { 1 }, false)
        }
        (T::Line | T::Ring | T::Mesh | T::Torus | T::Mesh3d | T::Hypercube, R::Duato) => {
            plan(if wrap { 2 } else { 1 }, true)
        }
        // One virtual network per direction of every dimension but the last.
        (T::Line | T::Mesh | T::Mesh3d | T::Hypercube, R::MinimalAdaptive) => {
            if ndims > 7 {
                return Err(format!(
                    "needs 2^{} virtual channels on {ndims} dimensions; use routing = duato",
                    ndims - 1
                ));
            }
            plan(1 << ndims.saturating_sub(1), false)
        }
        (T::Ring | T::Torus, R::MinimalAdaptive) => Err(
            "minimal adaptive routing on wrap-around links is not deadlock-free without escape channels; use routing = duato".into(),
        ),
        // Class = global hops taken: minimal takes one, Valiant two.
        (T::Dragonfly, R::MinimalAdaptive) => plan(2, false),
        (T::Dragonfly, R::Valiant | R::Ugal) => plan(3, false),
        (T::Dragonfly, R::Dor | R::Duato) => Err(
            "a dragonfly has no dimensions to order; use minimal-adaptive, valiant, ugal or table".into(),
        ),
        (_, R::Valiant | R::Ugal) => {
            Err("valiant and ugal route through dragonfly groups; use network.topology = dragonfly".into())
        }
    }
}

impl SsdConfig {
    /// Flash chips: the endpoints the network is sized from.
    pub fn network_chips(&self) -> u32 {
        self.flash
            .channels
            .saturating_mul(self.flash.chips_per_channel)
    }

    /// The topology's shape after defaults (custom files are read).
    pub fn network_shape(&self) -> Result<Shape, ConfigError> {
        let n = &self.network;
        let chips = self.network_chips().max(1);
        let dims_key = "network.dims";
        let given = |len: usize, what: &str| -> Result<Option<Vec<u32>>, ConfigError> {
            if n.dims.is_empty() {
                return Ok(None);
            }
            if n.dims.len() != len || n.dims.iter().any(|&d| d == 0 || d > 4096) {
                return Err(invalid(
                    dims_key,
                    format!("{:?}", n.dims),
                    format!(
                        "network.topology = {} takes {what}, each 1..=4096",
                        n.topology
                    ),
                ));
            }
            Ok(Some(n.dims.clone()))
        };
        let cube = |sizes: Vec<u32>, wrap| Shape::Cube {
            sizes,
            wrap,
            binary: false,
        };
        let shape = match n.topology {
            TopologyKind::Line | TopologyKind::Ring => {
                let k = given(1, "[routers]")?.map_or(chips, |d| d[0]);
                cube(vec![k], n.topology == TopologyKind::Ring)
            }
            TopologyKind::Mesh | TopologyKind::Torus => {
                if !n.dims.is_empty() {
                    return Err(invalid(
                        dims_key,
                        format!("{:?}", n.dims),
                        "a 2D mesh or torus is sized by network.rows and network.cols",
                    ));
                }
                let (rows, cols) = self.mesh_dims();
                cube(vec![cols, rows], n.topology == TopologyKind::Torus)
            }
            TopologyKind::Mesh3d => match given(3, "[x, y, z]")? {
                Some(d) => cube(d, false),
                None => {
                    let k = (1..)
                        .find(|k: &u32| (*k as u64).pow(3) >= chips as u64)
                        .unwrap();
                    let z = chips.div_ceil(k * k);
                    cube(vec![k, k, z], false)
                }
            },
            TopologyKind::Hypercube => {
                let dim = match &n.dims[..] {
                    [] => (32 - (chips - 1).leading_zeros()).max(1),
                    [d] if (1..=16).contains(d) => *d,
                    _ => {
                        return Err(invalid(
                            dims_key,
                            format!("{:?}", n.dims),
                            "network.topology = hypercube takes [n], n in 1..=16 (2^n routers)",
                        ))
                    }
                };
                Shape::Cube {
                    sizes: vec![2; dim as usize],
                    wrap: false,
                    binary: true,
                }
            }
            TopologyKind::Dragonfly => {
                let (a, h, p) = (n.dragonfly_a, n.dragonfly_h, n.dragonfly_p);
                if [a, h, p].iter().all(|&x| x == 0) {
                    // Balanced (Kim et al.): a = 2p, h = p; the smallest that holds every chip.
                    let p = (1..)
                        .find(|p: &u32| {
                            let p = *p as u64;
                            2 * p * p * (2 * p * p + 1) >= chips as u64
                        })
                        .unwrap();
                    Shape::Dragonfly { a: 2 * p, h: p, p }
                } else if [a, h, p].contains(&0) {
                    return Err(invalid(
                        "network.dragonfly_a",
                        format!("a = {a}, h = {h}, p = {p}"),
                        "give network.dragonfly_a, network.dragonfly_h and network.dragonfly_p together, or none (sized from the chips)",
                    ));
                } else {
                    Shape::Dragonfly { a, h, p }
                }
            }
            TopologyKind::Crossbar => Shape::Crossbar,
            TopologyKind::Custom => {
                let t = CustomTopology::load(&n.custom_topology)?;
                t.check_attachments(self.network_chips(), self.mesh_controllers())
                    .map_err(|m| invalid("network.custom_topology", &n.custom_topology, m))?;
                Shape::Custom(t)
            }
        };
        if !n.dims.is_empty()
            && matches!(
                n.topology,
                TopologyKind::Dragonfly | TopologyKind::Crossbar | TopologyKind::Custom
            )
        {
            return Err(invalid(
                dims_key,
                format!("{:?}", n.dims),
                format!("not used by network.topology = {}", n.topology),
            ));
        }
        Ok(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(toml: &str) -> Result<SsdConfig, String> {
        SsdConfig::from_toml(toml, "t.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn topologies_are_sized_from_the_chips() {
        let shape = |t: &str| {
            let routing = if t == "dragonfly" { "ugal" } else { "dor" };
            with(&format!(
                "[network]\ntopology = \"{t}\"\nrouting = \"{routing}\"\nvcs = 3\n"
            ))
            .unwrap()
            .network_shape()
            .unwrap()
        };
        let cube = |sizes: Vec<u32>, wrap, binary| Shape::Cube {
            sizes,
            wrap,
            binary,
        };
        assert_eq!(shape("mesh"), cube(vec![8, 8], false, false));
        assert_eq!(shape("torus"), cube(vec![8, 8], true, false));
        assert_eq!(shape("line"), cube(vec![64], false, false));
        assert_eq!(shape("ring"), cube(vec![64], true, false));
        assert_eq!(shape("mesh3d"), cube(vec![4, 4, 4], false, false));
        assert_eq!(shape("hypercube"), cube(vec![2; 6], false, true));
        assert_eq!(shape("dragonfly"), Shape::Dragonfly { a: 4, h: 2, p: 2 });
        assert_eq!(shape("crossbar"), Shape::Crossbar);
    }

    #[test]
    fn nonsense_combinations_name_both_keys() {
        for (t, r) in [
            ("dragonfly", "dor"),
            ("mesh", "ugal"),
            ("torus", "valiant"),
            ("torus", "minimal-adaptive"),
            ("custom", "duato"),
        ] {
            let e = with(&format!(
                "[network]\ntopology = \"{t}\"\nrouting = \"{r}\"\ncustom_topology = \"x\"\n"
            ))
            .unwrap_err();
            assert!(
                e.contains("network.routing") && e.contains("network.topology"),
                "{t} x {r}: {e}"
            );
        }
    }

    #[test]
    fn too_few_vcs_and_small_buffers_are_named() {
        let e =
            with("[network]\ntopology = \"torus\"\nrouting = \"duato\"\nvcs = 2\n").unwrap_err();
        assert!(e.contains("network.vcs") && e.contains("3"), "{e}");
        let e = with("[network]\nswitching = \"vct\"\n").unwrap_err();
        assert!(
            e.contains("network.input_buffer_bytes") && e.contains("network.packet_flits"),
            "{e}"
        );
        let e = with("[network]\nvcs = 64\nflit_bytes = 4096\n").unwrap_err();
        assert!(e.contains("network.input_buffer_bytes"), "{e}");
        let e = with("[network]\ntopology = \"dragonfly\"\nrouting = \"ugal\"\ndragonfly_a = 2\n")
            .unwrap_err();
        assert!(e.contains("network.dragonfly_a"), "{e}");
        let e = with("[network]\ntopology = \"line\"\ndims = [10]\n").unwrap_err();
        assert!(e.contains("network.dims") && e.contains("64"), "{e}");
    }

    #[test]
    fn custom_file_errors_name_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.toml");
        std::fs::write(&p, "routers = 3\nlinks = [[0, 1]]\n").unwrap();
        let e = with(&format!(
            "[network]\ntopology = \"custom\"\nrouting = \"table\"\ncustom_topology = {:?}\n",
            p.display().to_string()
        ))
        .unwrap_err();
        assert!(
            e.contains("network.custom_topology") && e.contains("not connected"),
            "{e}"
        );
    }

    /// Issue 43: `links = [[0, 1, 7]]` was read as [0, 1]; `chips` and `controllers` lists
    /// longer than the drive's chips and controllers were accepted. Each is now named.
    #[test]
    fn custom_links_are_pairs_and_attachment_lists_fit_the_drive() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.toml");
        let with_file = |text: &str| {
            std::fs::write(&p, text).unwrap();
            with(&format!(
                "[network]\ntopology = \"custom\"\nrouting = \"table\"\ncustom_topology = {:?}\n",
                p.display().to_string()
            ))
        };
        let ring = "routers = 4\nlinks = [[0, 1], [1, 2], [2, 3], [3, 0]]\n";
        with_file(ring).unwrap();
        let e = with_file("routers = 4\nlinks = [[0, 1], [1, 2, 7], [2, 3]]\n").unwrap_err();
        assert!(
            e.contains("network.custom_topology")
                && e.contains("links entry 2 = [1, 2, 7]: a link is a pair of routers"),
            "{e}"
        );
        let e = with_file("routers = 2\nlinks = [[0]]\n").unwrap_err();
        assert!(e.contains("links entry 1 = [0]"), "{e}");
        // The default drive: 64 chips, 8 controllers (one per mesh row).
        let chips = vec!["0"; 64].join(", ");
        with_file(&format!(
            "{ring}chips = [{chips}]\ncontrollers = [0, 1, 2, 3, 0, 1, 2, 3]\n"
        ))
        .unwrap();
        let e = with_file(&format!("{ring}chips = [{chips}, 1]\n")).unwrap_err();
        assert!(
            e.contains("network.custom_topology")
                && e.contains("chips lists 65 routers but the drive has 64 flash chips"),
            "{e}"
        );
        let e = with_file(&format!(
            "{ring}controllers = [0, 1, 2, 3, 0, 1, 2, 3, 0]\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("controllers lists 9 routers but the drive has 8 flash controllers"),
            "{e}"
        );
    }
}
