//! `[ftl]` and `[ftl.mapping]`: address translation, garbage collection, wear levelling and
//! the die scheduler's order.

use super::declare::section;
use super::schema::{table_only, word_keys, Field, KeyType, Kind, Param, Range, Section, Value};
use serde::{Deserialize, Serialize};

section! {
    /// Flash translation layer: mapping, GC, wear levelling and how a die orders its work.
    pub struct FtlConfig = "ftl" {
        /// Fraction of physical pages hidden from the host (validation/mqsim configuration of
        /// the Venice drive: 0.127).
        overprovisioning: f64 = 0.127, "fraction", Range::real(0.0, 0.89);
        /// Static plane-allocation order (MQSim's CWDP family).
        allocation: AllocationScheme = AllocationScheme::CWDP;
        /// Page-level mapping table placement.
        mapping: MappingConfig = MappingConfig::Demand {
            cmt_bytes: 2 * 1024 * 1024,
            entry_bytes: 8,
        };
        /// Start GC in a plane when its free blocks drop below this fraction of its blocks.
        gc_threshold: f64 = 0.05, "fraction of a plane's blocks", Range::above(0.0, 0.49);
        /// Below this fraction GC transactions take priority over user writes in that plane.
        gc_hard_threshold: f64 = 0.005, "fraction of a plane's blocks", Range::real(0.0, 0.49);
        /// GC victim choice (Venice §2: the block with the least valid pages).
        gc_policy: GcPolicy = GcPolicy::Greedy;
        /// false: GC transactions go before user I/O on their die (MQSim with preemptible GC
        /// off; validation/mqsim Preemptible_GC_Enabled = false). true: GC yields to user I/O
        /// until its plane falls below `gc_hard_threshold`.
        gc_preemptible: bool = false;
        /// Move GC pages with on-chip copyback (no channel transfer) instead of read + write.
        copyback: bool = false;
        /// Bytes of one mapping entry in a flash translation page (sets entries per page).
        translation_entry_bytes: u32 = 8, "bytes", Range::int(1, 32_768);
        /// How a die picks its next user transaction: `priority` (MQSim's out-of-order: reads
        /// before writes, any executable transaction in the queue) or `fifo` (user reads and
        /// writes in arrival order, the oldest first; a device that cannot reorder, for studying
        /// host schedulers such as PIQ) or `issue-order` (every queue, GC's included, in the
        /// order its oldest transaction was queued: no priority for GC or user I/O, as
        /// SimpleSSD's PAL books dies in issue order; GC still first on a plane below
        /// `gc_hard_threshold`).
        die_scheduling: DieScheduling = DieScheduling::Priority;
        /// When a user write (not absorbed by the DRAM cache) completes to the host: after its
        /// program (`program`, MQSim) or as soon as its data has crossed the channel into the chip
        /// (`transfer`, SSDsim 2.1: the program runs on, the chip stays busy).
        write_completion: WriteCompletion = WriteCompletion::Program;
        /// Where a user page write goes (MQSimNet §IV.A): `static` (the allocation scheme's
        /// plane), `chip` (die and plane index fixed, the first idle chip from the static one on)
        /// or `die` (plane index fixed, the first idle die from the static one on).
        dynamic_mapping: DynamicMapping = DynamicMapping::Static;
        /// How GC work shares the dies with user I/O: `per-plane` (each plane collects when it
        /// falls below `gc_threshold`), `parallel` (PaGC: a plane starting GC starts it on every
        /// plane of its die that has a reclaimable block), `preemptive` (GC yields to user I/O
        /// until its plane is below `gc_hard_threshold`), `tiny-tail` (partial GC: a die with
        /// user I/O waiting runs at most `gc_partial_ops` GC operations before a user one;
        /// dSSD §6.1).
        gc_mode: GcMode = GcMode::PerPlane;
        /// `tiny-tail`: GC operations a die may run while user I/O waits, before serving one.
        gc_partial_ops: u32 = 1, "GC operations", Range::int(1, 1_000_000);
        /// Where GC writes a moved page: `same-plane` (its victim's plane) or `global` (dSSD §2.2,
        /// §3 "global free block selection": the plane with the fewest valid pages that has room
        /// short of its last free block, scanned from a rotating start; the victim's own if none).
        gc_destination: GcDestination = GcDestination::SamePlane;
        /// Victims a plane may collect at once (MQSim: 10, `max_ongoing_gc_reqs_per_plane`,
        /// `SSD_Device.cpp` 310): with more than one, a plane below `gc_threshold` starts another
        /// each time its free blocks fall below their count when the last one started.
        gc_victims_per_plane: u32 = 1, "victims", Range::int(1, 1024);
        /// When a plane starts its next victim: `backlog` (whenever it is below `gc_threshold`:
        /// after each erase too, so a plane works off its deficit in one go) or `per-write`
        /// (SimpleSSD's GCReclaimBlocks = 1: one victim per host write that finds its plane below
        /// `gc_threshold`; an erase or an imported GC page starts the next only on a plane below
        /// `gc_hard_threshold` or too low for a user write).
        gc_pacing: GcPacing = GcPacing::Backlog;
        /// With demand mapping, how a GC move updates the entry of its page when the entry is not
        /// in the CMT: `cmt-insert` (MQSim, `Allocate_new_page_for_gc`: the new entry goes into
        /// the CMT dirty, evicting one slot, whose translation page is written back if dirty) or
        /// `cached-only` (only a cached entry is marked dirty; an uncached one is updated at no
        /// cost, an idealization kept to compare with). A cached entry is marked dirty either way.
        gc_mapping_update: GcMappingUpdate = GcMappingUpdate::CmtInsert;
        /// Static wear levelling (MQSim's `Static_Wearleveling_Threshold`, 100 in
        /// validation/mqsim): after an erase in a plane that leaves no GC running, if the plane's
        /// most- and least-erased blocks differ by at least this many erases, its least-erased
        /// block is collected like a GC victim (valid pages moved, then erased), so cold data
        /// stops pinning young blocks; as in MQSim, the round is skipped while that block is
        /// free or open. 0: off.
        static_wl_threshold: u32 = 100, "erases", Range::int(0, 1_000_000);
        /// Software superblock management's wear-status scan (WAS [40] in the dSSD paper, §6.4,
        /// Fig. 14(c)): at the start of the run the FTL reads one page of each of this many blocks
        /// (block `i / planes` of plane `i % planes`, its first page) to update their error rates;
        /// the pages take the background (GC read) queues and, with the controller model, cross the
        /// system bus into DRAM like any page read. The decoupled SSD's hardware management reads
        /// none. 0: off.
        status_scan_blocks: u32 = 0, "blocks", Range::int(0, u32::MAX as u64);
    }
}

/// Static plane-allocation order (MQSim's CWDP family): which address bit-field varies fastest.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum AllocationScheme {
    CWDP,
    CWPD,
    CDWP,
    CDPW,
    CPWD,
    CPDW,
    WCDP,
    WCPD,
    WDCP,
    WDPC,
    WPCD,
    WPDC,
    DCWP,
    DCPW,
    DWCP,
    DWPC,
    DPCW,
    DPWC,
    PCWD,
    PCDW,
    PWCD,
    PWDC,
    PDCW,
    PDWC,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GcPolicy {
    /// Fewest valid pages (Venice §2 "least number of valid pages").
    Greedy,
    /// Uniformly random full block (a common baseline; seeded).
    Random,
    /// Oldest-written full block first (FIFO).
    Fifo,
}

/// Page-level mapping table placement (`[ftl.mapping]`, keys declared in its `PARAMS`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "lowercase")]
pub enum MappingConfig {
    /// `type = "ideal"` (doc in `PARAMS`).
    Ideal,
    /// `type = "demand"`, a cached mapping table (doc in `PARAMS`).
    Demand { cmt_bytes: u64, entry_bytes: u32 },
}

/// A tagged enum, so its keys are declared by hand: `type` picks the variant, and a variant's
/// keys are absent under the other.
impl Section for MappingConfig {
    const NAME: &'static str = "ftl.mapping";
    const DOC: &'static str = " Page-level mapping table placement.\n";
    const PARAMS: &'static [Param<Self>] = &[
        Param {
            name: "type",
            doc: " `ideal`: the whole table always in controller DRAM, translation never touches\n flash. `demand`: a cached mapping table (DFTL / MQSim CMT): a miss reads the\n translation page from flash; evicting a dirty entry writes its translation page back.\n",
            unit: "",
            range: None,
            kind: Kind::Word,
            words: super::schema::words_of::<MappingConfig>,
            get: |m| match toml::Value::try_from(m) {
                Ok(toml::Value::Table(mut t)) => t.remove("type").map_or(Field::Absent, Field::Toml),
                _ => Field::Absent,
            },
        },
        Param {
            name: "cmt_bytes",
            doc: " `demand`: CMT capacity in bytes of controller DRAM (validation/mqsim: 2 MB). The\n table is allocated as it fills, so a large value costs memory only for entries a run\n touches.\n",
            unit: "bytes",
            range: Some(Range::int(1, 1 << 40)),
            kind: Kind::Int,
            words: <u64 as KeyType>::words,
            get: |m| match m {
                MappingConfig::Demand { cmt_bytes, .. } => Field::Number(Value::Int(*cmt_bytes)),
                MappingConfig::Ideal => Field::Absent,
            },
        },
        Param {
            name: "entry_bytes",
            doc: " `demand`: bytes of DRAM per cached entry (LPA + PPA, 4 B each).\n",
            unit: "bytes",
            range: Some(Range::int(1, 64)),
            kind: Kind::Int,
            words: <u32 as KeyType>::words,
            get: |m| match m {
                MappingConfig::Demand { entry_bytes, .. } => {
                    Field::Number(Value::Int(*entry_bytes as u64))
                }
                MappingConfig::Ideal => Field::Absent,
            },
        },
    ];
}

impl KeyType for MappingConfig {
    const KIND: Kind = Kind::Table;
    fn field(&self) -> Field<'_> {
        Field::Table(self)
    }
    fn de<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        table_only(d, Self::NAME)
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcMappingUpdate {
    CmtInsert,
    CachedOnly,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcPacing {
    Backlog,
    PerWrite,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcMode {
    PerPlane,
    Parallel,
    Preemptive,
    TinyTail,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcDestination {
    SamePlane,
    Global,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DynamicMapping {
    Static,
    Chip,
    Die,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WriteCompletion {
    Program,
    Transfer,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DieScheduling {
    Priority,
    Fifo,
    IssueOrder,
}

word_keys!(
    AllocationScheme,
    GcPolicy,
    GcMappingUpdate,
    GcPacing,
    GcMode,
    GcDestination,
    DynamicMapping,
    WriteCompletion,
    DieScheduling,
);
