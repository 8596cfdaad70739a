//! `[flash]` and `[flash.onfi]`: the flash array's geometry and timing.

use super::declare::section;
use super::schema::{word_keys, Range, RATE_MB_S, TIME_NS};
use serde::{Deserialize, Serialize};

section! {
    /// Flash array geometry and timing. Defaults: Venice (ISCA 2023) Table 1's
    /// performance-optimized drive (Samsung Z-NAND class).
    pub struct FlashConfig = "flash" {
        /// Flash channels (Venice Table 1: 8).
        channels: u32 = 8, "", Range::int(1, 4096);
        /// Chips per channel (Venice Table 1: 8).
        chips_per_channel: u32 = 8, "", Range::int(1, 4096);
        /// Dies per chip (Venice Table 1: 1).
        dies_per_chip: u32 = 1, "", Range::int(1, 256);
        /// Planes per die (Venice Table 1: 2).
        planes_per_die: u32 = 2, "", Range::int(1, 16);
        /// Blocks per plane (Venice Table 1: 1024).
        blocks_per_plane: u32 = 1024, "", Range::int(1, 1 << 24);
        /// Pages per block (Venice Table 1: 768).
        pages_per_block: u32 = 768, "", Range::int(1, 65_535);
        /// Page size, bytes (Venice Table 1: 4 KB); a multiple of 512 (a rule).
        page_bytes: u32 = 4096, "bytes", Range::int(512, 32_768);
        /// Array read time tR (Venice Table 1: 3 us).
        read_ns: f64 = 3_000.0, "ns", TIME_NS;
        /// Array program time tPROG (Venice Table 1: 100 us).
        program_ns: f64 = 100_000.0, "ns", TIME_NS;
        /// Block erase time tBERS (Venice Table 1: 1 ms).
        erase_ns: f64 = 1_000_000.0, "ns", TIME_NS;
        /// Command (+address) transfer time on the flash interface; Venice §3.1: 10 ns.
        command_ns: f64 = 10.0, "ns", TIME_NS;
        /// Flash channel I/O rate in MB/s (10^6 bytes/s); Venice Table 1: 1.2 GB/s.
        channel_mb_s: f64 = 1200.0, "MB/s", RATE_MB_S;
        /// How long a command (with its address cycles) occupies the flash interface:
        /// `venice` (§3.1's fixed `command_ns`) or `onfi` (NV-DDR2 cycles of `[flash.onfi]`, MQSim).
        command_timing: CommandTiming = CommandTiming::Venice;
        /// ONFI NV-DDR2 cycle times, used when `command_timing = "onfi"`.
        onfi: OnfiTiming = OnfiTiming::default();
        /// Which same-kind transactions on different planes of one die combine into one
        /// multi-plane operation (one command, one tR/tPROG, one data transfer per plane).
        multiplane: Multiplane = Multiplane::SameOffset;
        /// Which waiting transfer a shared channel serves when it frees. Not in the Venice
        /// paper: its simulator's rule (MQSim's PHY serves waiting read data-outs before new
        /// commands; docs/validation.md).
        channel_arbitration: ChannelArbitration = ChannelArbitration::DataOutFirst;
        /// tR by page type, ns: page offset in its block mod the list's length picks one (TLC
        /// LSB/CSB/MSB; dSSD Table 1 "read=60-95us"). Empty: `read_ns` for every page.
        /// `read_ns` stays the mean the energy model charges. At most 8 entries (a rule).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        read_ns_by_page_type: Vec<f64> = Vec::new();
        /// tPROG by page type, ns, as `read_ns_by_page_type`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        program_ns_by_page_type: Vec<f64> = Vec::new();
        /// Program/erase suspension: `off` (a read waits for the die's program or erase, as
        /// in MQSim, whose scheduler never suspends), `erase` or `program-erase` (the die
        /// suspends the operation, serves the reads waiting for it, and resumes).
        suspend: Suspend = Suspend::Off;
        /// Suspend latency: from the suspend command until the die takes a read, ns. No public
        /// datasheet of Table 1's parts gives one; chosen: about one program-verify (ISPP)
        /// step, where NAND can stop (Wu & He, FAST '12, §3). MQSim's configurations carry 100
        /// us (program) and 700 us (erase), unused.
        suspend_ns: f64 = 20_000.0, "ns", TIME_NS;
        /// Resume latency: from the resume command until the operation goes on, ns (chosen as
        /// `suspend_ns`: the die ramps its voltages back up for the next step).
        resume_ns: f64 = 20_000.0, "ns", TIME_NS;
        /// Suspensions one program or erase may take before it runs to its end (firmware
        /// bounds them so writes and erases cannot starve; chosen).
        max_suspends: u32 = 4, "", Range::int(1, 1_000);
        /// Which reads may suspend a program or erase: `host` (user reads, their mapping and
        /// read-modify-write reads) or `all` (GC and status-scan reads too).
        suspend_reads: SuspendReads = SuspendReads::Host;
    }
}

/// Program/erase suspension (`flash.suspend`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Suspend {
    Off,
    /// Erases yield to reads.
    Erase,
    /// Programs and erases yield to reads.
    ProgramErase,
}

/// Which reads may suspend (`flash.suspend_reads`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SuspendReads {
    /// Reads on behalf of host requests: user, mapping and read-modify-write reads.
    Host,
    /// Every read, GC's and status scans' too.
    All,
}

/// Command timing on the flash interface.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CommandTiming {
    /// Venice §3.1: every command takes `flash.command_ns` (10 ns), whatever its planes.
    Venice,
    /// ONFI NV-DDR2 cycles per command and plane count (`flash.onfi`), as MQSim times them
    /// (ONFI_Channel_NVDDR2): a read is 290 ns, a two-plane read 940 ns with its tDBSY.
    Onfi,
}

/// An ONFI cycle time: up to 1 ms.
const CYCLE_NS: Range = Range::real(0.0, 1e6);

section! {
    /// ONFI NV-DDR2 command cycle times, ns. Defaults are MQSim's (ONFI_Channel_NVDDR2.h), which
    /// no MQSim XML key changes; ONFI 4.x gives them as maxima / minima of the interface.
    pub struct OnfiTiming = "flash.onfi" {
        /// CE setup before the first command cycle (tCS).
        t_cs_ns: f64 = 20.0, "ns", CYCLE_NS;
        /// One command or address cycle (tWC).
        t_wc_ns: f64 = 25.0, "ns", CYCLE_NS;
        /// WE high to busy, after each command's last cycle (tWB).
        t_wb_ns: f64 = 100.0, "ns", CYCLE_NS;
        /// Ready to the first read data cycle (tRR), once per read command.
        t_rr_ns: f64 = 20.0, "ns", CYCLE_NS;
        /// Address cycle to data loading, per program segment (tADL).
        t_adl_ns: f64 = 70.0, "ns", CYCLE_NS;
        /// Command/address latch setup (tCALS), per extra program plane.
        t_cals_ns: f64 = 15.0, "ns", CYCLE_NS;
        /// DQS write postamble (tWPST), per program segment.
        t_wpst_ns: f64 = 6.0, "ns", CYCLE_NS;
        /// DQS write postamble hold (tWPSTH), once per program.
        t_wpsth_ns: f64 = 15.0, "ns", CYCLE_NS;
        /// Dummy busy between the planes of a multi-plane command (tDBSY).
        t_dbsy_ns: f64 = 500.0, "ns", CYCLE_NS;
    }
}

/// The multi-plane rule.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Multiplane {
    /// Only at the same page offset in their blocks (reads, programs) or the same block
    /// offset (erases): Venice §2 ("planes ... can concurrently operate only when accessing
    /// pages (or blocks) at the same offset"), and MQSim's rule.
    SameOffset,
    /// Any two reads or programs on different planes of a die (erases never combine);
    /// Lagoon's rule before it followed §2, kept to compare against.
    Any,
    /// Never: every transaction is a single-plane operation.
    Off,
}

/// The order in which a shared flash channel (`baseline`, `pssd`) serves the transfers waiting
/// for it. No paper states one; MQSim, which the Venice and MQSimNet authors used, serves
/// read data-outs first (docs/validation.md).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ChannelArbitration {
    /// In the order the transfers became ready (ties in event order): commands, program data
    /// and read data-outs alike.
    Fifo,
    /// Read data-outs waiting for the channel first, in ready order; then commands and program
    /// data, in ready order. MQSim's PHY (`NVM_PHY_ONFI_NVDDR2::Execute_simulator_event`)
    /// hands a freed channel to waiting data-outs before it tells the scheduler the channel
    /// is idle, which is when new commands go out. The default (the Venice presets' simulator).
    DataOutFirst,
    /// Commands without data (reads', erases') first, then read data-outs, then programs (command
    /// and data), each in ready order: SSDsim's `process()` serves an idle channel's waiting
    /// read commands (`services_2_r_wait`), then read data-outs (`services_2_r_data_trans`),
    /// then writes (`services_2_write`); its GC (erases) goes before all three.
    CommandFirst,
}

word_keys!(
    CommandTiming,
    Multiplane,
    ChannelArbitration,
    Suspend,
    SuspendReads
);
