//! The rules that tie keys of a configuration together, which no key's range can check: one
//! function each, run in [`RULES`]' order after the ranges; the first broken rule is the
//! error, naming its key. docs/CONFIG.md lists them.

use super::network::{vc_plan, Shape, VcPlan};
use super::schema::{key_error as invalid, TIME_NS};
use super::{
    ConfigError, Design, MappingConfig, PreconditionMode, RoutingKind, SsdConfig, Switching,
    TopologyKind,
};

/// A rule across keys.
pub struct Rule {
    /// The keys it ties, as written in docs/CONFIG.md.
    pub keys: &'static str,
    pub doc: &'static str,
    pub check: fn(&SsdConfig) -> Result<(), ConfigError>,
}

/// Every rule, in the order they are checked.
pub const RULES: &[Rule] = &[
    Rule {
        keys: "flash.page_bytes",
        doc: "a multiple of 512",
        check: page_bytes_multiple_of_512,
    },
    Rule {
        keys: "flash.read_ns_by_page_type, flash.program_ns_by_page_type",
        doc: "at most 8 page types, each time a finite number of ns in the range of flash.read_ns",
        check: page_type_times,
    },
    Rule {
        keys: "flash (geometry)",
        doc: "fewer than 2^31 physical pages (32-bit page indices)",
        check: pages_fit_indices,
    },
    Rule {
        keys: "ftl.status_scan_blocks",
        doc: "at most the drive's blocks",
        check: status_scan_within_drive,
    },
    Rule {
        keys: "ftl.gc_threshold x flash.blocks_per_plane",
        doc: "at least 2 blocks per plane for GC (user and GC write frontiers)",
        check: gc_reserve,
    },
    Rule {
        keys: "ftl.gc_hard_threshold",
        doc: "at most ftl.gc_threshold",
        check: gc_hard_below_soft,
    },
    Rule {
        keys: "ftl.overprovisioning",
        doc: "the logical space fits beside the GC reserve",
        check: logical_space_fits,
    },
    Rule {
        keys: "ftl.translation_entry_bytes",
        doc: "at most flash.page_bytes",
        check: translation_entry_fits_page,
    },
    Rule {
        keys: "ftl.mapping.cmt_bytes",
        doc: "holds at least one entry of ftl.mapping.entry_bytes",
        check: cmt_holds_an_entry,
    },
    Rule {
        keys: "cache.capacity_bytes",
        doc: "an enabled cache holds a multi-plane page group (flash.page_bytes x flash.planes_per_die)",
        check: cache_holds_a_page_group,
    },
    Rule {
        keys: "network.rows x network.cols",
        doc: "a router per chip, and at most 4 routers per chip (or 1024 routers)",
        check: mesh_size,
    },
    Rule {
        keys: "network.controllers",
        doc: "at most one controller per mesh row",
        check: controllers_per_row,
    },
    Rule {
        keys: "network.nossd_buffer_bytes",
        doc: "holds a command packet (network.command_bytes)",
        check: nossd_buffer_holds_a_command,
    },
    Rule {
        keys: "precondition.free_blocks",
        doc: "aged: at most the GC threshold's free blocks per plane",
        check: aged_free_blocks,
    },
    Rule {
        keys: "network.topology, network.routing, network.switching, network.vcs, network.*_buffer_bytes",
        doc: "the network layer: the routing function is provided on the topology, venice routes circuits, \
              the topology holds every chip and is not absurdly large, enough VCs to be deadlock-free, \
              buffers that hold a flit per VC (a packet per VC for vct and saf)",
        check: network_layer,
    },
    Rule {
        keys: "controller.dbuf_bytes",
        doc: "with global copyback, at least two pages (one page can stall GC)",
        check: dbuf_holds_two_pages,
    },
    Rule {
        keys: "fnoc.*",
        doc: "with controller.design = dssd_f: the network layer's rules on the fNoC (no custom topology)",
        check: fnoc_layer,
    },
    Rule {
        keys: "wear.reserve_fraction",
        doc: "RESERV leaves at least 4 blocks per plane to the FTL",
        check: reserve_leaves_blocks,
    },
    Rule {
        keys: "flash (geometry)",
        doc: "the model's up-front state within the memory limit (LAGOON_MAX_STATE_GB)",
        check: model_state_fits,
    },
];

fn page_bytes_multiple_of_512(c: &SsdConfig) -> Result<(), ConfigError> {
    let f = &c.flash;
    if !f.page_bytes.is_multiple_of(512) {
        return Err(invalid(
            "flash.page_bytes",
            f.page_bytes,
            "must be a multiple of 512 between 512 and 32768",
        ));
    }
    Ok(())
}

fn page_type_times(c: &SsdConfig) -> Result<(), ConfigError> {
    let f = &c.flash;
    for (key, v) in [
        ("flash.read_ns_by_page_type", &f.read_ns_by_page_type),
        ("flash.program_ns_by_page_type", &f.program_ns_by_page_type),
    ] {
        if v.len() > 8 {
            return Err(invalid(key, format!("{v:?}"), "at most 8 page types"));
        }
        if let Some(bad) = v
            .iter()
            .find(|&&t| TIME_NS.check(super::schema::Value::Real(t)).is_err())
        {
            return Err(invalid(
                key,
                bad,
                format!("every entry must be a finite number in {TIME_NS} (ns)"),
            ));
        }
    }
    Ok(())
}

fn pages_fit_indices(c: &SsdConfig) -> Result<(), ConfigError> {
    let pages = c.physical_pages();
    if pages >= u32::MAX as u64 / 2 {
        return Err(invalid(
            "flash (geometry)",
            pages,
            "more than 2^31 physical pages; use larger pages or fewer blocks",
        ));
    }
    Ok(())
}

fn status_scan_within_drive(c: &SsdConfig) -> Result<(), ConfigError> {
    let blocks = c.physical_pages() / c.flash.pages_per_block as u64;
    if c.ftl.status_scan_blocks as u64 > blocks {
        return Err(invalid(
            "ftl.status_scan_blocks",
            c.ftl.status_scan_blocks,
            format!("more than the drive's {blocks} blocks (flash geometry)"),
        ));
    }
    Ok(())
}

/// Blocks per plane below the GC threshold.
fn gc_blocks(c: &SsdConfig) -> u64 {
    (c.ftl.gc_threshold * c.flash.blocks_per_plane as f64).floor() as u64
}

fn gc_reserve(c: &SsdConfig) -> Result<(), ConfigError> {
    // GC needs at least two free blocks per plane (user and GC write frontiers) to make progress.
    if gc_blocks(c) < 2 {
        return Err(invalid(
            "ftl.gc_threshold",
            c.ftl.gc_threshold,
            format!(
                "ftl.gc_threshold x flash.blocks_per_plane ({}) must leave at least 2 blocks per plane for GC",
                c.flash.blocks_per_plane
            ),
        ));
    }
    Ok(())
}

fn gc_hard_below_soft(c: &SsdConfig) -> Result<(), ConfigError> {
    let ftl = &c.ftl;
    if ftl.gc_hard_threshold > ftl.gc_threshold {
        return Err(invalid(
            "ftl.gc_hard_threshold",
            ftl.gc_hard_threshold,
            format!("must be in [0, ftl.gc_threshold = {}]", ftl.gc_threshold),
        ));
    }
    Ok(())
}

fn logical_space_fits(c: &SsdConfig) -> Result<(), ConfigError> {
    let (f, ftl) = (&c.flash, &c.ftl);
    let gc_blocks = gc_blocks(c);
    let logical_per_plane = ((f.blocks_per_plane as f64 * f.pages_per_block as f64)
        * (1.0 - ftl.overprovisioning)) as u64;
    let usable = (f.blocks_per_plane as u64 - gc_blocks - 1) * f.pages_per_block as u64;
    if logical_per_plane > usable {
        return Err(invalid(
            "ftl.overprovisioning",
            ftl.overprovisioning,
            format!("the logical space ({logical_per_plane} pages per plane of flash.blocks_per_plane x flash.pages_per_block) does not fit beside the GC reserve ({gc_blocks} blocks of ftl.gc_threshold); raise it"),
        ));
    }
    Ok(())
}

fn translation_entry_fits_page(c: &SsdConfig) -> Result<(), ConfigError> {
    if c.ftl.translation_entry_bytes > c.flash.page_bytes {
        return Err(invalid(
            "ftl.translation_entry_bytes",
            c.ftl.translation_entry_bytes,
            format!("must be in 1..=flash.page_bytes ({})", c.flash.page_bytes),
        ));
    }
    Ok(())
}

fn cmt_holds_an_entry(c: &SsdConfig) -> Result<(), ConfigError> {
    if let MappingConfig::Demand {
        cmt_bytes,
        entry_bytes,
    } = c.ftl.mapping
    {
        if cmt_bytes < entry_bytes as u64 {
            return Err(invalid(
                "ftl.mapping.cmt_bytes",
                cmt_bytes,
                format!("must hold at least one entry of {entry_bytes} bytes"),
            ));
        }
    }
    Ok(())
}

fn cache_holds_a_page_group(c: &SsdConfig) -> Result<(), ConfigError> {
    let f = &c.flash;
    if c.cache.enabled && c.cache.capacity_bytes < f.page_bytes as u64 * (f.planes_per_die as u64) {
        return Err(invalid(
            "cache.capacity_bytes",
            c.cache.capacity_bytes,
            "must hold at least one multi-plane page group",
        ));
    }
    Ok(())
}

// The networked back ends place chip c on router c and controller i on the first router of
// row i × rows / controllers: the mesh must hold every chip, and each controller needs a row
// of its own.
fn mesh_size(c: &SsdConfig) -> Result<(), ConfigError> {
    let chips = c.flash.channels as u64 * c.flash.chips_per_channel as u64;
    let (rows, cols) = c.mesh_dims();
    let routers = rows as u64 * cols as u64;
    if routers < chips {
        return Err(invalid(
            "network.rows x network.cols",
            format!("{rows}x{cols}"),
            format!("{routers} routers but the flash array has {chips} chips (flash.channels x flash.chips_per_channel); the network needs a router per chip"),
        ));
    }
    if routers > 4 * chips.max(256) {
        return Err(invalid(
            "network.rows x network.cols",
            format!("{rows}x{cols}"),
            format!("{routers} routers for {chips} chips (flash.channels x flash.chips_per_channel); at most 4 routers per chip (or 1024 routers) are modelled"),
        ));
    }
    Ok(())
}

fn controllers_per_row(c: &SsdConfig) -> Result<(), ConfigError> {
    let (rows, _) = c.mesh_dims();
    if c.mesh_controllers() > rows {
        return Err(invalid(
            "network.controllers",
            c.network.controllers,
            format!("at most one controller per mesh row ({rows} rows): controller i attaches to the first router of row i x rows / controllers"),
        ));
    }
    Ok(())
}

fn nossd_buffer_holds_a_command(c: &SsdConfig) -> Result<(), ConfigError> {
    let n = &c.network;
    if n.nossd_buffer_bytes < n.command_bytes {
        return Err(invalid(
            "network.nossd_buffer_bytes",
            n.nossd_buffer_bytes,
            format!(
                "must hold a command packet (network.command_bytes = {})",
                n.command_bytes
            ),
        ));
    }
    Ok(())
}

fn aged_free_blocks(c: &SsdConfig) -> Result<(), ConfigError> {
    if c.precondition.mode == PreconditionMode::Aged {
        let free = c.precondition.free_blocks as u64;
        let gc_blocks = gc_blocks(c);
        if free > gc_blocks {
            return Err(invalid(
                "precondition.free_blocks",
                free,
                format!("aged preconditioning leaves at most the GC threshold's {gc_blocks} free blocks per plane (ftl.gc_threshold x flash.blocks_per_plane)"),
            ));
        }
    }
    Ok(())
}

/// The network layer's rules, on `[network]` (and on the fNoC's view of itself as a network).
fn network_layer(c: &SsdConfig) -> Result<(), ConfigError> {
    // Before the shape: a nonsense pair is named even if a custom file is missing.
    routing_provided(c, 0)?;
    venice_routes_circuits(c)?;
    let shape = c.network_shape()?;
    topology_size(c, &shape)?;
    let ndims = match &shape {
        Shape::Cube { sizes, .. } => sizes.len() as u32,
        _ => 0,
    };
    let plan = routing_provided(c, ndims)?;
    enough_vcs(c, plan)?;
    buffers_hold_flits(c)
}

fn routing_provided(c: &SsdConfig, ndims: u32) -> Result<VcPlan, ConfigError> {
    let n = &c.network;
    vc_plan(n.topology, n.routing, ndims).map_err(|why| {
        invalid(
            "network.routing",
            n.routing,
            format!("not provided on network.topology = {}: {why}", n.topology),
        )
    })
}

fn venice_routes_circuits(c: &SsdConfig) -> Result<(), ConfigError> {
    let n = &c.network;
    if n.routing == RoutingKind::Venice && n.switching != Switching::Circuit {
        return Err(invalid(
            "network.switching",
            n.switching,
            "network.routing = venice sets up circuits with scouts: use network.switching = circuit",
        ));
    }
    Ok(())
}

fn topology_size(c: &SsdConfig, shape: &Shape) -> Result<(), ConfigError> {
    let n = &c.network;
    let chips = c.network_chips() as u64;
    let routers = shape.routers();
    let topo_key = match n.topology {
        TopologyKind::Dragonfly => "network.dragonfly_a",
        TopologyKind::Line | TopologyKind::Ring | TopologyKind::Mesh3d => "network.dims",
        TopologyKind::Hypercube => "network.dims",
        _ => "network.topology",
    };
    let holds = match shape {
        Shape::Cube { .. } => routers,
        Shape::Dragonfly { a, p, .. } => routers / *a as u64 * *a as u64 * *p as u64,
        Shape::Crossbar | Shape::Custom(_) => u64::MAX,
    };
    if holds < chips {
        return Err(invalid(
            topo_key,
            format!("{} ({routers} routers)", n.topology),
            format!("holds {holds} flash chips but the array has {chips} (flash.channels x flash.chips_per_channel)"),
        ));
    }
    if routers > 4 * chips.max(256) {
        return Err(invalid(
            topo_key,
            format!("{} ({routers} routers)", n.topology),
            format!("{routers} routers for {chips} chips; at most 4 routers per chip (or 1024 routers) are modelled"),
        ));
    }
    Ok(())
}

fn enough_vcs(c: &SsdConfig, plan: VcPlan) -> Result<(), ConfigError> {
    let n = &c.network;
    if n.switching != Switching::Circuit && n.vcs < plan.min_vcs() {
        return Err(invalid(
            "network.vcs",
            n.vcs,
            format!(
                "network.routing = {} on network.topology = {} needs at least {} virtual channels ({} class{}{}) to be deadlock-free",
                n.routing,
                n.topology,
                plan.min_vcs(),
                plan.classes,
                if plan.classes == 1 { "" } else { "es" },
                if plan.adaptive { " + adaptive" } else { "" }
            ),
        ));
    }
    Ok(())
}

fn buffers_hold_flits(c: &SsdConfig) -> Result<(), ConfigError> {
    let n = &c.network;
    for (key, bytes) in [
        ("network.input_buffer_bytes", n.input_buffer_bytes),
        ("network.output_buffer_bytes", n.output_buffer_bytes),
    ] {
        if key == "network.output_buffer_bytes" && bytes == 0 {
            continue; // an input-queued router
        }
        let per_vc = bytes / n.vcs.max(1) / n.flit_bytes.max(1);
        if per_vc == 0 {
            return Err(invalid(
                key,
                bytes,
                format!(
                    "must hold a flit per virtual channel: network.vcs ({}) x network.flit_bytes ({})",
                    n.vcs, n.flit_bytes
                ),
            ));
        }
        if matches!(n.switching, Switching::Vct | Switching::Saf) && per_vc < n.packet_flits {
            return Err(invalid(
                key,
                bytes,
                format!(
                    "network.switching = {} needs a whole packet per virtual channel: {} flits of network.packet_flits x network.flit_bytes ({}) x network.vcs ({}) = {} bytes",
                    n.switching,
                    n.packet_flits,
                    n.flit_bytes,
                    n.vcs,
                    n.packet_flits as u64 * n.flit_bytes as u64 * n.vcs as u64
                ),
            ));
        }
    }
    Ok(())
}

fn dbuf_holds_two_pages(c: &SsdConfig) -> Result<(), ConfigError> {
    let ctl = &c.controller;
    if ctl.enabled && ctl.design.global_copyback() && ctl.dbuf_bytes < 2 * c.flash.page_bytes {
        return Err(invalid(
            "controller.dbuf_bytes",
            ctl.dbuf_bytes,
            format!(
                "must hold at least two pages of flash.page_bytes = {} (one page can stall GC)",
                c.flash.page_bytes
            ),
        ));
    }
    Ok(())
}

/// The fNoC is checked as the network layer checks `[network]`, its errors renamed to `fnoc.*`.
fn fnoc_layer(c: &SsdConfig) -> Result<(), ConfigError> {
    if !c.controller.enabled || c.controller.design != Design::DssdF {
        return Ok(());
    }
    if c.fnoc.topology == TopologyKind::Custom {
        return Err(invalid(
            "fnoc.topology",
            c.fnoc.topology,
            "custom topologies are not provided for the fNoC",
        ));
    }
    let rename = |e: ConfigError| match e {
        ConfigError::Invalid { key, value, reason } => ConfigError::Invalid {
            key: key.replacen("network.", "fnoc.", 1),
            value,
            reason: reason.replace("network.", "fnoc."),
        },
        e => e,
    };
    network_layer(&c.fnoc_view()).map_err(rename)
}

fn reserve_leaves_blocks(c: &SsdConfig) -> Result<(), ConfigError> {
    let r = c.reserved_blocks_per_plane();
    // The FTL needs superblocks for data, a user and a GC frontier, and its GC reserve.
    if c.flash.blocks_per_plane.saturating_sub(r) < 4 {
        return Err(invalid(
            "wear.reserve_fraction",
            c.wear.reserve_fraction,
            format!(
                "leaves fewer than 4 of flash.blocks_per_plane ({}) to the FTL",
                c.flash.blocks_per_plane
            ),
        ));
    }
    Ok(())
}

fn model_state_fits(c: &SsdConfig) -> Result<(), ConfigError> {
    use super::schema::{model_state_limit, over_state_limit};
    let need = c.model_state_bytes();
    let limit = model_state_limit()?;
    if need > limit {
        return Err(invalid(
            "flash (geometry)",
            format!("{:.1} GB of model state", need as f64 / 1e9),
            format!(
                "{}; use fewer channels, chips, dies, planes or blocks",
                over_state_limit(limit)
            ),
        ));
    }
    Ok(())
}
