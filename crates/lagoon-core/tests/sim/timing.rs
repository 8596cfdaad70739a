//! Exact-time tests against hand-computed schedules.

use lagoon_core::config::{CommandTiming, MappingConfig, Multiplane, SsdConfig, WriteCompletion};
use lagoon_core::interconnect::Arch;
use lagoon_core::sim::{ProbeOp, Simulator};
use lagoon_core::time::{PS_PER_NS, PS_PER_US};

/// Venice §3.1: CMD 10 ns, tR 3 us, a 4 KB page transfer 4 us (a 1.024 GB/s channel).
fn venice_31() -> SsdConfig {
    let mut c = SsdConfig::default();
    c.flash.command_ns = 10.0;
    c.flash.read_ns = 3_000.0;
    c.flash.channel_mb_s = 1024.0;
    c
}

/// Chip `chip`'s first page (1 die per chip, 2 planes): plane = chip * 2.
fn first_page(c: &SsdConfig, chip: u32, plane_in_die: u32) -> u32 {
    let g = lagoon_core::flash::Geometry::new(&c.flash, c.ftl.allocation);
    g.ppa(chip * 2 + plane_in_die, 0, 0)
}

const T_7_01: u64 = 7 * PS_PER_US + 10 * PS_PER_NS;
const T_11_01: u64 = 11 * PS_PER_US + 10 * PS_PER_NS;

#[test]
fn venice_3_1_two_reads_one_channel_finish_at_11_01_us() {
    let c = venice_31();
    // chips 0 and 1 share channel 0
    let t = Simulator::probe_flash(
        &c,
        Arch::Baseline,
        &[
            ProbeOp::Read {
                ppa: first_page(&c, 0, 0),
            },
            ProbeOp::Read {
                ppa: first_page(&c, 1, 0),
            },
        ],
    );
    assert_eq!(t, vec![T_7_01, T_11_01]);
}

#[test]
fn venice_3_1_two_reads_two_channels_finish_at_7_01_us() {
    let c = venice_31();
    // chip 8 is on channel 1
    let t = Simulator::probe_flash(
        &c,
        Arch::Baseline,
        &[
            ProbeOp::Read {
                ppa: first_page(&c, 0, 0),
            },
            ProbeOp::Read {
                ppa: first_page(&c, 8, 0),
            },
        ],
    );
    assert_eq!(t, vec![T_7_01, T_7_01]);
}

/// A freed channel with a read data-out and a command waiting: chip 0's data-out holds channel
/// 0 over [3.01, 7.01] us and chip 1's data-out is ready at 3.02 us; chip 2's read command
/// arrives at 3.015 us (before it) or 3.5 us (after it). `fifo` serves whichever was ready
/// first, `data-out-first` the data-out (MQSim), `command-first` the command (SSDsim).
#[test]
fn channel_arbitration_orders_a_waiting_data_out_and_command() {
    use lagoon_core::config::ChannelArbitration::{CommandFirst, DataOutFirst, Fifo};
    let (us, ns) = (PS_PER_US, PS_PER_NS);
    let run = |arb, command_at| {
        let mut c = venice_31();
        c.flash.channel_arbitration = arb;
        let read = |chip| ProbeOp::Read {
            ppa: first_page(&c, chip, 0),
        };
        let ops = [(0, read(0)), (0, read(1)), (command_at, read(2))];
        Simulator::probe_flash_at(&c, Arch::Baseline, &ops).0
    };
    // Command first: chip 2's command [7.01, 7.02], tR to 10.02; chip 1's data [7.02, 11.02];
    // chip 2's data [11.02, 15.02].
    let command_first = vec![T_7_01, 11 * us + 20 * ns, 15 * us + 20 * ns];
    // Data-out first: chip 1's data [7.01, 11.01]; chip 2's command [11.01, 11.02], tR to
    // 14.02, data [14.02, 18.02].
    let data_first = vec![T_7_01, T_11_01, 18 * us + 20 * ns];
    let (early, late) = (3 * us + 15 * ns, 3 * us + 500 * ns);
    assert_eq!(run(Fifo, early), command_first);
    assert_eq!(run(Fifo, late), data_first);
    assert_eq!(run(DataOutFirst, early), data_first);
    assert_eq!(run(DataOutFirst, late), data_first);
    assert_eq!(run(CommandFirst, early), command_first);
    assert_eq!(run(CommandFirst, late), command_first);
}

#[test]
fn ideal_back_end_removes_the_conflict() {
    let c = venice_31();
    let t = Simulator::probe_flash(
        &c,
        Arch::Ideal,
        &[
            ProbeOp::Read {
                ppa: first_page(&c, 0, 0),
            },
            ProbeOp::Read {
                ppa: first_page(&c, 1, 0),
            },
        ],
    );
    assert_eq!(t, vec![T_7_01, T_7_01]);
}

#[test]
fn write_is_command_and_data_then_tprog() {
    let c = venice_31();
    // LPA 0 lives on channel 0, chip 0 (CWDP); 10 ns + 4 us data + 100 us tPROG
    let t = Simulator::probe_flash(&c, Arch::Baseline, &[ProbeOp::Program { lpa: 0 }]);
    assert_eq!(t, vec![104 * PS_PER_US + 10 * PS_PER_NS]);
    // Two programs on one channel: the second's transfer waits for the first's.
    let t = Simulator::probe_flash(
        &c,
        Arch::Baseline,
        &[ProbeOp::Program { lpa: 0 }, ProbeOp::Program { lpa: 8 }],
    );
    assert_eq!(
        t,
        vec![
            104 * PS_PER_US + 10 * PS_PER_NS,
            108 * PS_PER_US + 20 * PS_PER_NS
        ]
    );
}

#[test]
fn erase_is_command_then_tbers() {
    let c = venice_31();
    let t = Simulator::probe_flash(&c, Arch::Baseline, &[ProbeOp::Erase { plane: 0, block: 5 }]);
    assert_eq!(t, vec![1_000 * PS_PER_US + 10 * PS_PER_NS]);
}

/// Two reads to the two planes of die 0 under each multi-plane rule (Venice §2): at the same
/// page offset they are one command, one tR and 8 KB out (10 ns + 3 us + 8 us); at different
/// offsets, under `same-offset`, two commands, the second waiting for the die (7.01, 14.02 us).
#[test]
fn multiplane_read_pairs_only_at_the_same_offset() {
    let c = venice_31();
    let g = lagoon_core::flash::Geometry::new(&c.flash, c.ftl.allocation);
    let read = |plane: u32, block: u32, page: u32| ProbeOp::Read {
        ppa: g.ppa(plane, block, page),
    };
    let same = [read(0, 0, 0), read(1, 0, 0)];
    let other_page = [read(0, 0, 0), read(1, 0, 1)];
    let other_block = [read(0, 0, 5), read(1, 3, 5)];
    let with = |rule: Multiplane| {
        let mut x = c.clone();
        x.flash.multiplane = rule;
        x
    };
    let probe = |cfg: &SsdConfig, ops: &[ProbeOp]| Simulator::probe_flash(cfg, Arch::Baseline, ops);
    let two = vec![T_7_01, 2 * T_7_01];
    let one = vec![T_11_01, T_11_01];
    let so = with(Multiplane::SameOffset);
    assert_eq!(probe(&so, &same), one);
    assert_eq!(probe(&so, &other_page), two);
    // The page offset decides, not the block (MQSim pairs by page; Venice §2 "pages ... at
    // the same offset").
    assert_eq!(probe(&so, &other_block), one);
    let any = with(Multiplane::Any);
    assert_eq!(probe(&any, &same), one);
    assert_eq!(probe(&any, &other_page), one);
    let off = with(Multiplane::Off);
    assert_eq!(probe(&off, &same), two);
}

/// Erases combine only under `same-offset` and only at the same block offset: 10 ns + 1 ms
/// for the pair, or a second erase after the first.
#[test]
fn multiplane_erase_pairs_at_the_same_block_offset() {
    let mut c = venice_31();
    c.flash.multiplane = Multiplane::SameOffset;
    let erase = |plane, block| ProbeOp::Erase { plane, block };
    let t_e = 1_000 * PS_PER_US + 10 * PS_PER_NS;
    let t = Simulator::probe_flash(&c, Arch::Baseline, &[erase(0, 5), erase(1, 5)]);
    assert_eq!(t, vec![t_e, t_e]);
    let t = Simulator::probe_flash(&c, Arch::Baseline, &[erase(0, 5), erase(1, 6)]);
    assert_eq!(t, vec![t_e, 2 * t_e]);
    c.flash.multiplane = Multiplane::Any;
    let t = Simulator::probe_flash(&c, Arch::Baseline, &[erase(0, 5), erase(1, 5)]);
    assert_eq!(t, vec![t_e, 2 * t_e]);
}

/// One 4 KB read on an idle perf-optimized drive, end to end, every step hand-computed.
#[test]
fn single_read_end_to_end_latency() {
    let mut c = SsdConfig::default();
    c.ftl.mapping = MappingConfig::Ideal;
    c.cache.enabled = false;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("one.trace");
    std::fs::write(&trace, "1000 0 0 8 1\n").unwrap();
    let r = super::common::run(&c, Arch::Baseline, &[trace.to_str().unwrap()], 1);
    // SQE fetch: (64 + 28) B at 8 GB/s = 11.5 ns; command 10 ns; tR 3 us;
    // 4096 B at 1.2 GB/s = 3413.334 ns (rounded up to a ps); PCIe data (4096 + 32*28) B = 624 ns;
    // CQE (16 + 28) B = 5.5 ns.
    let ps = 11_500 + 10_000 + 3_000_000 + 3_413_334 + 624_000 + 5_500;
    assert_eq!(r.sim_time_ns, ps as f64 / 1000.0);
    assert_eq!(r.latency_ns.max, ps / 1000);
    assert_eq!(r.latency_ns.mean, (ps / 1000) as f64);
    assert_eq!(r.path_conflict_fraction, 0.0);
    assert_eq!(r.flash.read_commands, 1);
}

/// `command_timing = "onfi"` (MQSim's NV-DDR2 cycles): a read command is 290 ns, a two-plane
/// read 940 ns (tDBSY 500 ns between the planes), a program 361 ns, an erase 220 ns and a
/// two-plane erase 920 ns; data as before (4 KB in 4 us here). Same pairing rule as Venice
/// timing: different page offsets are two commands.
#[test]
fn onfi_command_times_for_each_operation_and_plane_count() {
    let mut c = venice_31();
    c.flash.command_timing = CommandTiming::Onfi;
    let g = lagoon_core::flash::Geometry::new(&c.flash, c.ftl.allocation);
    let read = |plane: u32, page: u32| ProbeOp::Read {
        ppa: g.ppa(plane, 0, page),
    };
    let probe = |ops: &[ProbeOp]| Simulator::probe_flash(&c, Arch::Baseline, ops);
    let us = PS_PER_US;
    let ns = PS_PER_NS;
    // One read: 290 ns + 3 us + 4 us.
    assert_eq!(probe(&[read(0, 0)]), vec![7 * us + 290 * ns]);
    // Same offset: one two-plane command, 940 ns + 3 us + 8 us.
    assert_eq!(
        probe(&[read(0, 0), read(1, 0)]),
        vec![11 * us + 940 * ns; 2]
    );
    // Different offsets: two commands; the second waits for the die.
    assert_eq!(
        probe(&[read(0, 0), read(1, 1)]),
        vec![7 * us + 290 * ns, 14 * us + 580 * ns]
    );
    // A program: 361 ns command, 4 us data, 100 us tPROG.
    assert_eq!(
        probe(&[ProbeOp::Program { lpa: 0 }]),
        vec![104 * us + 361 * ns]
    );
    let erase = |plane, block| ProbeOp::Erase { plane, block };
    assert_eq!(probe(&[erase(0, 5)]), vec![1_000 * us + 220 * ns]);
    assert_eq!(
        probe(&[erase(0, 5), erase(1, 5)]),
        vec![1_000 * us + 920 * ns; 2]
    );
}

/// The ONFI formulas against MQSim's numbers for the perf-optimized XML (research notes of
/// issue 10): read 290 / 940 ns, program 361 / 1,177 ns, erase 220 / 920 ns for 1 / 2 planes.
#[test]
fn onfi_formulas_match_mqsim_nvddr2() {
    use lagoon_core::flash::{onfi_command_ns, FlashOp};
    let f = SsdConfig::default().flash;
    for (op, one, two) in [
        (FlashOp::Read, 290.0, 940.0),
        (FlashOp::Program, 361.0, 1177.0),
        (FlashOp::Erase, 220.0, 920.0),
    ] {
        assert_eq!(onfi_command_ns(&f, op, 1), one, "{op:?}");
        assert_eq!(onfi_command_ns(&f, op, 2), two, "{op:?}");
    }
}

/// `ftl.write_completion = "transfer"` (SSDsim 2.1): a write completes when its data is in
/// the chip, exactly tPROG (100 us) before it would after its program; the chip stays busy.
#[test]
fn write_acknowledged_at_transfer_is_tprog_earlier() {
    let mut c = SsdConfig::default();
    c.ftl.mapping = MappingConfig::Ideal;
    c.cache.enabled = false;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("w.trace");
    // Two writes to one chip (LPAs 0 and 128: same channel, way and plane under CWDP).
    std::fs::write(&trace, "1000 0 0 8 0\n1000 0 1024 8 0\n").unwrap();
    let w = trace.to_str().unwrap();
    let program = super::common::run(&c, Arch::Baseline, &[w], 1);
    c.ftl.write_completion = WriteCompletion::Transfer;
    let transfer = super::common::run(&c, Arch::Baseline, &[w], 1);
    assert_eq!(program.requests, 2);
    assert_eq!(transfer.requests, 2);
    // The first write: exactly tPROG earlier.
    assert_eq!(
        program.latency_ns.min - transfer.latency_ns.min,
        100_000,
        "{} vs {}",
        program.latency_ns.min,
        transfer.latency_ns.min
    );
    // The second still waits for the first's program on the same plane: well over tPROG.
    assert!(
        transfer.latency_ns.max > 100_000,
        "{}",
        transfer.latency_ns.max
    );
}

/// dSSD §6.4 / Fig. 15: a block remapped by a controller's SRT runs on the plane it was
/// remapped to. Two reads on chips 0 and 1 of channel 0 finish at 7.01 and 11.01 us (their
/// arrays overlap, the channel serializes the two 4 us transfers); remap chip 1's block 0
/// onto plane 0 of chip 0, the plane of the other read, and the second read's array time
/// waits for the first: CMD 10 ns + tR 3 us + 4 us out = 7.01 us, then the second
/// command, tR and transfer: 7.01 + 0.01 + 3 + 4 = 14.02 us.
#[test]
fn remapped_block_on_the_other_reads_plane_serializes_the_reads() {
    use lagoon_core::ssd::dynamic_superblock::BlockRemap;
    use std::sync::Arc;
    let c = venice_31();
    let g = lagoon_core::flash::Geometry::new(&c.flash, c.ftl.allocation);
    let ops = [
        (
            0,
            ProbeOp::Read {
                ppa: first_page(&c, 0, 0),
            },
        ),
        (
            0,
            ProbeOp::Read {
                ppa: first_page(&c, 1, 0),
            },
        ),
    ];
    let identity = Arc::new(BlockRemap::identity(g.planes, g.blocks_per_plane));
    let (t, _) = Simulator::probe_flash_remapped(&c, Arch::Baseline, &ops, Some(identity));
    assert_eq!(t, vec![T_7_01, T_11_01]);
    let mut r = BlockRemap::identity(g.planes, g.blocks_per_plane);
    r.set(2, 0, 0); // chip 1 = planes 2-3; its block 0 now lives on plane 0
    assert_eq!(r.moved_blocks(), 1);
    let (t, _) = Simulator::probe_flash_remapped(&c, Arch::Baseline, &ops, Some(Arc::new(r)));
    assert_eq!(t, vec![T_7_01, 14 * PS_PER_US + 20 * PS_PER_NS]);
}
