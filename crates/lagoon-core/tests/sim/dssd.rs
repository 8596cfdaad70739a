//! Decoupled SSD (ISCA 2023; SPEC §1.6): exact times of one GC page move along each data
//! path, an I/O meeting a system bus busy with GC, and invariants of the controller model
//! and of aged preconditioning.

use lagoon_core::config::{
    Design, GcDestination, GcMode, InvalidDistribution, MappingConfig, PreconditionMode, SsdConfig,
};
use lagoon_core::flash::Geometry;
use lagoon_core::interconnect::Arch;
use lagoon_core::sim::{ProbeOp, Simulator};
use lagoon_core::ssd::ftl::Ftl;
use lagoon_core::time::{Ps, PS_PER_NS};
use proptest::prelude::*;

/// The tiny drive (2 channels x 2 chips x 1 die x 2 planes, 64 blocks of 16 pages), ULL timing
/// (dSSD Table 1): tR 5 us, tPROG 50 us, CMD 10 ns, a 1 GB/s flash bus; system bus and DRAM
/// 8 GB/s, DRAM access 26 ns, ECC 100 ns per page.
fn drive(design: Design) -> SsdConfig {
    let mut c = lagoon_core::testing::tiny();
    c.name = "dssd-tiny".into();
    c.flash.read_ns = 5_000.0;
    c.flash.program_ns = 50_000.0;
    c.flash.command_ns = 10.0;
    c.flash.channel_mb_s = 1000.0;
    c.ftl.mapping = MappingConfig::Ideal;
    c.cache.dram_mb_s = 8000.0;
    c.cache.dram_access_ns = 26.0;
    c.controller.enabled = true;
    c.controller.design = design;
    c.controller.system_bus_mb_s = 8000.0;
    c.controller.ecc_ns_per_page = 100.0;
    c.ftl.gc_destination = if design.global_copyback() {
        GcDestination::Global
    } else {
        GcDestination::SamePlane
    };
    c.fnoc.topology = lagoon_core::config::TopologyKind::Line;
    c.validate().unwrap();
    c
}

const NS: Ps = PS_PER_NS;

/// A logical page preconditioned in `plane` (channel 1 holds planes 4-7).
fn lpa_in(c: &SsdConfig, plane: u32) -> u32 {
    Geometry::new(&c.flash, c.ftl.allocation).lpa_of(plane, 3) as u32
}

/// One GC move of a page of plane 5 (chip 2, channel 1), alone: (completion, destination).
fn gc_move(c: &SsdConfig) -> (Ps, u32) {
    let (t, x) = Simulator::probe_flash_at(
        c,
        Arch::Baseline,
        &[(0, ProbeOp::GcMove { lpa: lpa_in(c, 5) })],
    );
    (t[0], x.gc_destinations[0])
}

// Stages of a 4 KB page, ns: CMD 10; tR 5000; flash bus 4096 B / 1 GB/s = 4096; ECC 100;
// system bus 4096 B / 8 GB/s = 512 (x1.25 = 10 GB/s: 409.6); DRAM 26 + 512 = 538; tPROG 50000.
const READ_OUT: Ps = (10 + 5_000 + 4_096) * NS;
const PROGRAM: Ps = (10 + 4_096 + 50_000) * NS;

/// dSSD §3, Fig. 1: flash → FC (ECC) → bus → DRAM → [DRAM] → bus → FC → flash. The DRAM
/// read that forwards the page to its program is charged only with `dram_forward_reads`
/// (SimpleSSD's accounting charges the store alone).
#[test]
fn conventional_gc_move_crosses_bus_twice_and_dram_once_or_twice() {
    for forward in [false, true] {
        for d in [Design::Baseline, Design::Bw] {
            let mut c = drive(d);
            c.controller.dram_forward_reads = forward;
            let bus = if d == Design::Bw { 409_600 } else { 512 * NS };
            let (t, dest) = gc_move(&c);
            assert_eq!(dest, 5, "same-plane destination");
            let dram = if forward { 2 * 538 * NS } else { 538 * NS };
            let want = READ_OUT + 100 * NS + bus + dram + bus + PROGRAM;
            assert_eq!(t, want, "{d} forward reads {forward}");
        }
    }
}

/// Copyback inside the die (§2.2): one command, tR + tPROG, no data on any bus.
#[test]
fn copyback_gc_move_stays_in_the_die() {
    let mut c = drive(Design::Baseline);
    c.ftl.copyback = true;
    let (t, dest) = gc_move(&c);
    assert_eq!(dest, 5);
    assert_eq!(t, (10 + 5_000 + 50_000) * NS);
}

/// Global copyback (§4.2, Fig. 4) over the system bus (dSSD, BW's 10 GB/s bus), the
/// dedicated bus (dSSD_b, 2 GB/s) and the fNoC (dSSD_f): FC → link → FC, no DRAM. The
/// destination is plane 0 (global selection: all planes hold as many valid pages; the scan
/// starts at plane 0), on channel 0: one fNoC hop.
#[test]
fn global_copyback_gc_move_over_each_fc_link() {
    // fNoC, wormhole, zero load (network/mod.rs): (H+2)(f+L) + (H+1)R + (P-1)f with H = 1
    // hop, a byte per 0.5 ns (2 GB/s), flits of 32 B: f = 16 ns, L = 1 ns, R = 2 ns, and
    // 4096 + 16 header bytes = 129 flits: 3 x 17 + 2 x 2 + 128 x 16 = 2103 ns.
    for (d, link) in [
        (Design::Dssd, 409_600),
        (Design::DssdB, 2_048 * NS),
        (Design::DssdF, 2_103 * NS),
    ] {
        let c = drive(d);
        let (t, dest) = gc_move(&c);
        assert_eq!(dest, 0, "{d}");
        assert_eq!(t, READ_OUT + 100 * NS + link + PROGRAM, "{d}");
    }
    // The fNoC's formula agrees with the network layer's zero-load latency.
    let net = lagoon_core::interconnect::network::Network::from_config(
        &drive(Design::DssdF).fnoc_view(),
        1,
    )
    .unwrap();
    assert_eq!(net.zero_load(1, 129), 2_103 * NS);
}

/// A global copyback whose destination is on its own channel needs no FC link.
#[test]
fn global_copyback_on_the_same_channel_skips_the_link() {
    let c = drive(Design::DssdF);
    // Plane 1 (chip 0, channel 0): global selection picks plane 0, also channel 0.
    let (t, x) = Simulator::probe_flash_at(
        &c,
        Arch::Baseline,
        &[(0, ProbeOp::GcMove { lpa: lpa_in(&c, 1) })],
    );
    assert_eq!(x.gc_destinations, vec![0]);
    assert_eq!(t[0], READ_OUT + 100 * NS + PROGRAM);
}

/// A bounded destination dBUF (`dbuf_destination_bytes`): two global copyback pages read at
/// the same time on channels 1 and 2, both headed for channel 0 (planes 0 and 1), over
/// dSSD's system bus (10 GB/s: 409.6 ns a page). With room for two pages there, the second
/// page follows the first on the bus; with room for one, the second read is not even
/// dispatched (the slot is taken at dispatch) until the first page's program has moved it
/// into the chip (CMD 10 + 4096 ns of data on channel 0); then it is read out and checked
/// (READ_OUT + ECC 100 ns) before it takes the bus.
#[test]
fn a_full_destination_dbuf_holds_gc_reads_at_their_source() {
    let ready = READ_OUT + 100 * NS;
    let bus = 409_600;
    for (pages, second_start) in [
        (2, ready + bus),
        (1, ready + bus + (10 + 4_096) * NS + ready),
    ] {
        let mut c = drive(Design::Dssd);
        c.flash.channels = 4;
        c.controller.dbuf_destination_bytes = pages * 4096;
        c.validate().unwrap();
        let (_, x) = Simulator::probe_flash_at(
            &c,
            Arch::Baseline,
            &[
                (0, ProbeOp::GcMove { lpa: lpa_in(&c, 5) }),
                (0, ProbeOp::GcMove { lpa: lpa_in(&c, 9) }),
            ],
        );
        let mut dest = x.gc_destinations.clone();
        dest.sort_unstable();
        assert_eq!(dest, vec![0, 1], "both to channel 0");
        assert_eq!(x.bus_grants.len(), 2, "{:?}", x.bus_grants);
        assert_eq!(x.bus_grants[0], (ready, ready + bus), "dbuf {pages} pages");
        assert_eq!(
            x.bus_grants[1],
            (second_start, second_start + bus),
            "dbuf {pages} pages"
        );
    }
}

/// A user read whose data reaches the system bus while a GC page holds it waits exactly the
/// bus time that remains, probed at one ps before, at, and after the GC grant's end.
#[test]
fn io_meeting_a_bus_busy_with_gc_waits_the_remaining_bus_time() {
    let c = drive(Design::Baseline);
    let g = Geometry::new(&c.flash, c.ftl.allocation);
    // GC page on plane 5 (channel 1); the user read on plane 0 (channel 0): no shared die
    // or flash bus. The GC page holds the bus from READ_OUT + ECC to that + 512 ns.
    let gc_bus = (READ_OUT + 100 * NS, READ_OUT + 100 * NS + 512 * NS);
    for delay in [200 * NS, 512 * NS - 1, 512 * NS, 600 * NS] {
        let ops = [
            (0, ProbeOp::GcMove { lpa: lpa_in(&c, 5) }),
            (
                delay,
                ProbeOp::Read {
                    ppa: g.ppa(0, 0, 0),
                },
            ),
        ];
        let (t, x) = Simulator::probe_flash_at(&c, Arch::Baseline, &ops);
        let ready = delay + READ_OUT + 100 * NS;
        // Bus grants in order: the GC page, the user read, the GC page back to its FC.
        assert_eq!(x.bus_grants[0], gc_bus);
        let wait = gc_bus.1.saturating_sub(ready);
        assert_eq!(x.bus_grants[1].0, ready + wait, "delay {delay}");
        assert_eq!(x.bus_grants[1].0 - ready, gc_bus.1.saturating_sub(ready));
        // Then DRAM: after the GC page's DRAM write (26 + 512 ns) if that is later.
        let bus_end = x.bus_grants[1].1;
        let gc_dram_end = gc_bus.1 + 538 * NS;
        let dram_start = bus_end.max(gc_dram_end);
        assert_eq!(t[1], dram_start + 538 * NS, "delay {delay}");
    }
}

/// WAS's status scan (`ftl.status_scan_blocks`, Fig. 14(c)): the scanned block's first page
/// (block 0 of plane 0, channel 0) is read at time 0 and crosses the system bus and DRAM as
/// a user read would; a user read on channel 1 meets it only there, and waits exactly the bus
/// time that remains, then the scan page's DRAM write. Without the scan it does not wait.
#[test]
fn a_status_scan_read_holds_the_bus_and_dram_like_a_page_read() {
    let mut c = drive(Design::Baseline);
    let g = Geometry::new(&c.flash, c.ftl.allocation);
    let user = |delay| {
        [(
            delay,
            ProbeOp::Read {
                ppa: g.ppa(5, 0, 0),
            },
        )]
    };
    let scan_bus = (READ_OUT + 100 * NS, READ_OUT + 100 * NS + 512 * NS);
    for delay in [0, 200 * NS, 512 * NS, 600 * NS] {
        c.ftl.status_scan_blocks = 0;
        let (alone, _) = Simulator::probe_flash_at(&c, Arch::Baseline, &user(delay));
        assert_eq!(alone[0], delay + READ_OUT + 100 * NS + 512 * NS + 538 * NS);
        c.ftl.status_scan_blocks = 1;
        let (t, x) = Simulator::probe_flash_at(&c, Arch::Baseline, &user(delay));
        assert_eq!(x.bus_grants[0], scan_bus, "the scan page goes first");
        let ready = delay + READ_OUT + 100 * NS;
        let bus_start = ready.max(scan_bus.1);
        assert_eq!(x.bus_grants[1].0, bus_start, "delay {delay}");
        let dram_start = (bus_start + 512 * NS).max(scan_bus.1 + 538 * NS);
        assert_eq!(t[0], dram_start + 538 * NS, "delay {delay}");
    }
    // More blocks than the drive has are named.
    c.ftl.status_scan_blocks = 2 * 2 * 2 * 64 + 1;
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.contains("ftl.status_scan_blocks") && e.contains("512 blocks"),
        "{e}"
    );
}

/// The property test's shrunk case of a stall: a status scan (37 blocks) on a dSSD with
/// preemptive GC. A multi-plane read that paired a scan page with GC pages took no source-dBUF
/// slots for the GC pages (counted by the first page's kind), their departures underflowed
/// the count, and GC stopped. Every request now completes, and every scan read.
#[test]
fn a_scan_page_sharing_a_gc_read_leaves_the_dbuf_count_whole() {
    let mut c = drive(Design::Dssd);
    c.ftl.gc_mode = GcMode::Preemptive;
    c.controller.dbuf_bytes = 2 * 4096;
    c.cache.enabled = false;
    c.precondition.mode = PreconditionMode::Aged;
    c.precondition.occupancy = 0.5;
    c.ftl.static_wl_threshold = 0;
    c.ftl.status_scan_blocks = 37;
    let o = super::common::verified_run(
        &c,
        Arch::Baseline,
        "syn:read=30,size=uniform:4k-16k,addr=hotcold:80/30,count=6000",
        0,
        false,
    );
    assert_eq!(o.flows[0].completed, 6000);
    assert_eq!(o.flash.scan_reads, 37);
}

/// Closed loop at depth 16 with the FTL's invariant scan and the resource audit.
fn verified(c: &SsdConfig, w: &str, seed: u64) -> lagoon_core::sim::Outcome {
    super::common::verified_run(c, Arch::Baseline, w, seed, true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random overwrites on an aged drive, every design, GC mode and pacing, dies GC-first or
    /// in issue order, source dBUFs of 2-8 pages, destination dBUFs unbounded or of 1-8 pages,
    /// static wear levelling off, eager (2 erases apart) or at MQSim's 100, with or without a
    /// WAS status scan of up to every block:
    /// every request completes (no dBUF deadlock), no logical page is lost (FTL scan), the
    /// bus, DRAM and dedicated bus were never granted to two movements at once, and every
    /// scan read was done.
    #[test]
    fn gc_never_loses_a_page_and_resources_are_exclusive(
        design in prop::sample::select(Design::ALL.to_vec()),
        mode in prop::sample::select(vec![GcMode::PerPlane, GcMode::Parallel, GcMode::Preemptive, GcMode::TinyTail]),
        cache in any::<bool>(),
        copyback in any::<bool>(),
        occupancy in 0.5f64..=1.0,
        dbuf_pages in 2u32..=8,
        dbuf_in_pages in 0u32..=8,
        forward in any::<bool>(),
        per_write in any::<bool>(),
        issue_order in any::<bool>(),
        wl in prop::sample::select(vec![0u32, 2, 100]),
        scan in prop::sample::select(vec![0u32, 1, 37, 512]),
        seed in 0u64..1000,
    ) {
        use lagoon_core::config::{DieScheduling, GcPacing};
        let mut c = drive(design);
        c.ftl.gc_mode = mode;
        c.ftl.gc_pacing = if per_write { GcPacing::PerWrite } else { GcPacing::Backlog };
        c.ftl.die_scheduling =
            if issue_order { DieScheduling::IssueOrder } else { DieScheduling::Priority };
        c.controller.dbuf_bytes = dbuf_pages * 4096;
        // 0: unbounded; else a destination dBUF of 1-8 pages (its slot taken at dispatch).
        c.controller.dbuf_destination_bytes = dbuf_in_pages * 4096;
        c.controller.dram_forward_reads = forward;
        c.cache.enabled = cache;
        c.ftl.copyback = copyback && !design.global_copyback();
        c.precondition.mode = PreconditionMode::Aged;
        c.precondition.occupancy = occupancy;
        c.ftl.static_wl_threshold = wl;
        c.ftl.status_scan_blocks = scan;
        let w = "syn:read=30,size=uniform:4k-16k,addr=hotcold:80/30,count=6000";
        let o = verified(&c, w, seed);
        let done: u64 = o.flows.iter().map(|f| f.completed).sum();
        prop_assert_eq!(done, 6000);
        prop_assert_eq!(o.flash.scan_reads, scan as u64);
        prop_assert!(o.ftl.gc_page_moves > 0, "no GC");
        prop_assert_eq!(o.consistency.clone().unwrap(), Ok(()));
        prop_assert_eq!(o.resource_audit.clone().unwrap(), Ok(()));
        // The timeline (Fig. 2) puts every GC read and every GC program in one window.
        let tl = o.timeline.as_ref().unwrap();
        let page = c.flash.page_bytes as u64;
        prop_assert_eq!(tl.gc_read_bytes.v.iter().sum::<u64>(), o.flash.gc_reads * page);
        prop_assert_eq!(tl.gc_bytes.v.iter().sum::<u64>(), o.flash.gc_writes * page);
        let s = o.controller.as_ref().unwrap();
        if design.global_copyback() {
            prop_assert_eq!(s.gc_moves_through_dram, 0);
        } else {
            prop_assert_eq!(s.gc_moves_global_cross_channel + s.gc_moves_global_same_channel, 0);
        }
    }

    /// Aged preconditioning (dSSD §6.1): every block's valid counter matches the map, the
    /// planes hold the preconditioned pages, and exactly `free_blocks` per plane are free.
    #[test]
    fn aged_precondition_counts_match_the_map(
        occupancy in 0.0f64..=1.0,
        free in 0u32..=6,
        equal in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let mut c = drive(Design::Baseline);
        c.precondition.mode = PreconditionMode::Aged;
        c.precondition.occupancy = occupancy;
        c.precondition.free_blocks = free;
        c.precondition.invalid_distribution =
            if equal { InvalidDistribution::Equal } else { InvalidDistribution::Uniform };
        c.validate().unwrap();
        let ftl = Ftl::new(&c, seed);
        prop_assert_eq!(ftl.check_consistency(), Ok(()));
        let free_want = if free == 0 { 6 } else { free };
        let g = &ftl.geo;
        for p in 0..g.planes {
            prop_assert_eq!(ftl.free_blocks(p), free_want);
            prop_assert_eq!(ftl.plane_valid(p), ftl.precondition_pages_per_plane);
        }
        let per_block: Vec<u32> = ftl.block_valid_counts().map(|b| b.2).collect();
        let sum: u64 = per_block.iter().map(|&v| v as u64).sum();
        prop_assert_eq!(sum, ftl.precondition_pages_per_plane * g.planes as u64);
        if equal {
            // Equal spread: full blocks of a plane differ by at most one valid page.
            let full = (g.blocks_per_plane - free_want) as usize;
            for p in 0..g.planes as usize {
                let b = &per_block[p * g.blocks_per_plane as usize..][..full];
                let (lo, hi) = (b.iter().min().unwrap(), b.iter().max().unwrap());
                prop_assert!(hi - lo <= 1);
            }
        }
    }
}

/// With aged preconditioning GC starts within the first milliseconds of a write run.
#[test]
fn aged_drive_collects_within_the_first_milliseconds() {
    let mut c = drive(Design::Baseline);
    c.precondition.mode = PreconditionMode::Aged;
    c.precondition.occupancy = 0.9;
    // The first write a plane takes opens a block: its free blocks fall below the threshold.
    let o = verified(&c, "syn:read=0,size=4k,addr=uniform,count=16", 1);
    assert!(o.ftl.gc_runs > 0);
    assert!(o.sim_time < 2_000_000_000, "{} ps", o.sim_time);
}

/// Bad values are one error naming the key.
#[test]
fn bad_controller_and_fnoc_keys_are_named() {
    for (toml, key) in [
        (
            "[controller]\nsystem_bus_mb_s = 0.0\n",
            "controller.system_bus_mb_s",
        ),
        ("[controller]\ndesign = \"dssd_x\"\n", "design"),
        (
            "[controller]\nenabled = true\ndesign = \"dssd_f\"\n[fnoc]\nrouting = \"ugal\"\n",
            "fnoc.routing",
        ),
        ("[fnoc]\nlink_mb_s = -1.0\n", "fnoc.link_mb_s"),
        (
            "[controller]\nenabled = true\ndesign = \"dssd\"\ndbuf_bytes = 4096\n",
            "controller.dbuf_bytes",
        ),
        (
            "[precondition]\nmode = \"aged\"\nfree_blocks = 100\n",
            "precondition.free_blocks",
        ),
        (
            "[flash]\nread_ns_by_page_type = [1.0, -2.0]\n",
            "flash.read_ns_by_page_type",
        ),
    ] {
        let e = SsdConfig::from_toml(toml, "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{toml}: {e}");
    }
}

/// Presets of dSSD Table 1 load, and the TLC drive's array time follows the page type.
#[test]
fn dssd_presets_follow_table_1() {
    let u = SsdConfig::load("dssd-ull").unwrap();
    let f = &u.flash;
    assert_eq!(
        (
            f.channels,
            f.chips_per_channel,
            f.dies_per_chip,
            f.planes_per_die
        ),
        (8, 8, 1, 8)
    );
    assert_eq!(
        (f.blocks_per_plane, f.pages_per_block, f.page_bytes),
        (1384, 384, 4096)
    );
    assert_eq!((f.read_ns, f.program_ns, f.erase_ns), (5e3, 5e4, 1e6));
    assert_eq!(f.channel_mb_s, 1000.0);
    assert_eq!(u.controller.system_bus_mb_s, 8000.0);
    assert_eq!(u.cache.dram_mb_s, 8000.0);
    assert_eq!((u.host.pcie_lanes, u.host.pcie_lane_gb_s), (8, 0.9846));
    let t = SsdConfig::load("dssd-tlc").unwrap();
    assert_eq!((t.flash.page_bytes, t.flash.erase_ns), (16384, 2e6));
    let timing = lagoon_core::flash::FlashTiming::new(&t.flash);
    use lagoon_core::flash::FlashOp;
    for (offset, read, prog) in [
        (0, 60_000, 200_000),
        (1, 77_500, 350_000),
        (5, 95_000, 500_000),
    ] {
        assert_eq!(
            timing.array_time_at(FlashOp::Read, [offset].into_iter()),
            read * NS
        );
        assert_eq!(
            timing.array_time_at(FlashOp::Program, [offset].into_iter()),
            prog * NS
        );
    }
}

/// One die of one plane, 10 blocks of 8 pages, aged: 8 full blocks of 4 valid pages (40
/// logical pages at occupancy 0.8 = 32, 4 a block), 2 free (the threshold, 0.2 x 10).
/// Controller off: a read is CMD 10 + tR 5000 + 4096 ns out, a program CMD 10 + 4096 ns in
/// + tPROG 50000, an erase CMD 10 + tBERS 1000000.
fn pacing_drive(
    pacing: lagoon_core::config::GcPacing,
    dies: lagoon_core::config::DieScheduling,
) -> SsdConfig {
    let mut c = drive(Design::Baseline);
    c.controller.enabled = false;
    c.flash.channels = 1;
    c.flash.chips_per_channel = 1;
    c.flash.planes_per_die = 1;
    c.flash.blocks_per_plane = 10;
    c.flash.pages_per_block = 8;
    c.flash.erase_ns = 1_000_000.0;
    c.ftl.overprovisioning = 0.5;
    c.ftl.gc_threshold = 0.2;
    c.ftl.gc_pacing = pacing;
    c.ftl.die_scheduling = dies;
    c.precondition.mode = PreconditionMode::Aged;
    c.precondition.occupancy = 0.8;
    c.precondition.invalid_distribution = InvalidDistribution::Equal;
    c.validate().unwrap();
    c
}

/// GC pacing (SimpleSSD: one victim per triggering write, dies booked in issue order). Host
/// write W1 at 0 (logical page 39, never written: no victim loses a page to it) opens a user
/// block: 1 free block, below the threshold, so W1 starts one victim of 4 valid pages; W2
/// (page 38) arrives at 1 ns and goes into W1's open block.
/// - per-write, issue order: W1 (P), the victim's 4 reads (queued at 0, before W2), then W2:
///   P + 4R + P. Its GC writes were queued after W2 (as each read finished).
/// - per-write, GC first: W1, 4 reads, 4 programs, the erase, then W2: P + 4R + 4P + E + P.
///   After the erase the plane has 1 free block, still below the threshold, but per-write
///   pacing waits for the next host write.
/// - backlog, GC first: the erase starts a second victim at once (its 4 pages fit in the
///   open GC block): P + 2 (4R + 4P + E) + P.
#[test]
fn gc_pacing_one_victim_per_write_interleaves_with_a_host_write() {
    use lagoon_core::config::{DieScheduling, GcPacing};
    let (r, p, e) = (9_106 * NS, 54_106 * NS, 1_000_010 * NS);
    let ops = [
        (0, ProbeOp::Program { lpa: 39 }),
        (NS, ProbeOp::Program { lpa: 38 }),
    ];
    for (pacing, dies, w2) in [
        (GcPacing::PerWrite, DieScheduling::IssueOrder, p + 4 * r + p),
        (
            GcPacing::PerWrite,
            DieScheduling::Priority,
            p + 4 * r + 4 * p + e + p,
        ),
        (
            GcPacing::Backlog,
            DieScheduling::Priority,
            p + 2 * (4 * r + 4 * p + e) + p,
        ),
    ] {
        let c = pacing_drive(pacing, dies);
        let ftl = Ftl::new(&c, 0);
        assert_eq!(
            (
                ftl.free_blocks(0),
                ftl.valid_pages(0, 0),
                ftl.valid_pages(0, 7)
            ),
            (2, 4, 4)
        );
        let (t, _) = Simulator::probe_flash_at(&c, Arch::Baseline, &ops);
        assert_eq!(t, vec![p, w2], "{pacing:?} {dies:?}");
    }
}
