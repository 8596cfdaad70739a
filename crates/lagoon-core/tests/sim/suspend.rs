//! Program/erase suspension (issue 35): exact times against hand-computed schedules, and the
//! invariants of whole runs with suspension on every back end.
//!
//! The drive is Venice §3.1's (CMD 10 ns, tR 3 us, a 4 KB page transfer 4 us, tPROG 100 us,
//! tBERS 1 ms) with a 20 us suspend latency and a 20 us resume latency. Alone, a read takes
//! 7.01 us, a program 104.01 us (command and data 4.01 us, then tPROG).

use super::common::verified_run;
use lagoon_core::config::{SsdConfig, Suspend, SuspendReads};
use lagoon_core::flash::Geometry;
use lagoon_core::interconnect::Arch;
use lagoon_core::sim::{ProbeOp, Simulator};
use lagoon_core::time::{Ps, PS_PER_NS, PS_PER_US};

const US: Ps = PS_PER_US;
const NS: Ps = PS_PER_NS;

fn drive(mode: Suspend) -> SsdConfig {
    let mut c = SsdConfig::default();
    c.flash.command_ns = 10.0;
    c.flash.read_ns = 3_000.0;
    c.flash.channel_mb_s = 1024.0;
    c.flash.suspend = mode;
    c.flash.suspend_ns = 20_000.0;
    c.flash.resume_ns = 20_000.0;
    c.validate().unwrap();
    c
}

fn geo(c: &SsdConfig) -> Geometry {
    Geometry::new(&c.flash, c.ftl.allocation)
}

/// A read of chip 0 (plane `p` of its die), at block `b`.
fn read(c: &SsdConfig, p: u32, b: u32) -> ProbeOp {
    ProbeOp::Read {
        ppa: geo(c).ppa(p, b, 3),
    }
}

/// A program of a logical page whose static plane is `p` (chip 0).
fn program(c: &SsdConfig, p: u32) -> ProbeOp {
    ProbeOp::Program {
        lpa: geo(c).lpa_of(p, 11) as u32,
    }
}

fn run(c: &SsdConfig, ops: &[(Ps, ProbeOp)]) -> Vec<Ps> {
    Simulator::probe_flash_at(c, Arch::Baseline, ops).0
}

#[test]
fn a_read_during_a_program_suspends_it_and_the_program_resumes_with_its_remaining_time() {
    let c = drive(Suspend::ProgramErase);
    let t = run(&c, &[(0, program(&c, 0)), (50 * US, read(&c, 0, 7))]);
    // Suspended at 50 us, in effect at 70 us with 104.01 - 70 = 34.01 us left; the read runs
    // 70 -> 77.01 us; resumed at 77.01 us: 20 us resume + 34.01 us.
    assert_eq!(t[1], 77 * US + 10 * NS);
    assert_eq!(t[0], 131 * US + 20 * NS);
    // Off: the read waits for the program (104.01 + 7.01).
    let off = run(
        &drive(Suspend::Off),
        &[(0, program(&c, 0)), (50 * US, read(&c, 0, 7))],
    );
    assert_eq!(off, vec![104 * US + 10 * NS, 111 * US + 20 * NS]);
}

#[test]
fn a_read_during_an_erase_suspends_it() {
    let c = drive(Suspend::Erase);
    let erase = ProbeOp::Erase { plane: 0, block: 5 };
    let t = run(&c, &[(0, erase), (200 * US, read(&c, 0, 7))]);
    // The erase is due at 1000.01 us; in effect at 220 us with 780.01 us left; the read
    // ends at 227.01 us; the erase at 227.01 + 20 + 780.01.
    assert_eq!(t[1], 227 * US + 10 * NS);
    assert_eq!(t[0], 1027 * US + 20 * NS);
    // Erase-only suspension leaves programs alone.
    let t = run(&c, &[(0, program(&c, 0)), (50 * US, read(&c, 0, 7))]);
    assert_eq!(t, vec![104 * US + 10 * NS, 111 * US + 20 * NS]);
}

#[test]
fn a_second_read_inside_the_suspension_is_served_before_the_resume() {
    let c = drive(Suspend::ProgramErase);
    let t = run(
        &c,
        &[
            (0, program(&c, 0)),
            (50 * US, read(&c, 0, 7)),
            // Arrives while the first read is in the array: served next (77.01 -> 84.02).
            (72 * US, read(&c, 1, 9)),
        ],
    );
    assert_eq!(t[1], 77 * US + 10 * NS);
    assert_eq!(t[2], 84 * US + 20 * NS);
    assert_eq!(t[0], (84 + 20 + 34) * US + 30 * NS);
}

#[test]
fn max_suspends_bounds_the_suspensions_of_one_operation() {
    let mut c = drive(Suspend::ProgramErase);
    c.flash.max_suspends = 1;
    let ops = [
        (0, program(&c, 0)),
        (50 * US, read(&c, 0, 7)),
        (100 * US, read(&c, 1, 9)),
    ];
    // The first read suspends (done 77.01, program due 131.02); the second, at 100 us, may
    // not: it waits for the program.
    let t = run(&c, &ops);
    assert_eq!(
        t,
        vec![131 * US + 20 * NS, 77 * US + 10 * NS, 138 * US + 30 * NS]
    );
    // With two allowed it suspends again: in effect at 120 us with 11.02 us left.
    c.flash.max_suspends = 2;
    let t = run(&c, &ops);
    assert_eq!(
        t,
        vec![158 * US + 30 * NS, 77 * US + 10 * NS, 127 * US + 10 * NS]
    );
}

#[test]
fn an_operation_that_ends_within_the_suspend_latency_runs_on() {
    let c = drive(Suspend::ProgramErase);
    // At 90 us the program (due 104.01) would end before a suspension took effect (110 us).
    let t = run(&c, &[(0, program(&c, 0)), (90 * US, read(&c, 0, 7))]);
    assert_eq!(t, vec![104 * US + 10 * NS, 111 * US + 20 * NS]);
}

#[test]
fn a_multi_plane_program_is_suspended_as_a_whole() {
    let c = drive(Suspend::ProgramErase);
    // Two programs at one offset on the die's two planes: one command, 8 us of data, due
    // 108.01 us; suspended at 50 (in effect at 70, 38.01 us left), resumed at 77.01.
    let t = run(
        &c,
        &[
            (0, program(&c, 0)),
            (0, program(&c, 1)),
            (50 * US, read(&c, 0, 7)),
        ],
    );
    assert_eq!(t[2], 77 * US + 10 * NS);
    assert_eq!(t[0], 135 * US + 20 * NS);
    assert_eq!(t[1], t[0]);
}

#[test]
fn gc_reads_suspend_only_when_allowed() {
    let mut c = drive(Suspend::ProgramErase);
    let lpa = geo(&c).lpa_of(0, 2) as u32;
    let ops = [(0, program(&c, 0)), (50 * US, ProbeOp::GcMove { lpa })];
    // Host reads only: the GC read waits for the program (104.01), reads (111.02), and its
    // program runs 111.02 -> 215.03.
    let host = run(&c, &ops);
    assert_eq!(host, vec![104 * US + 10 * NS, 215 * US + 30 * NS]);
    // All reads: the GC read suspends the program as a host read would (131.02); its own
    // program then waits for the resumed one: 131.02 + 4.01 + 100.
    c.flash.suspend_reads = SuspendReads::All;
    let all = run(&c, &ops);
    assert_eq!(all, vec![131 * US + 20 * NS, 235 * US + 30 * NS]);
}

/// Whole runs with suspension on every back end: every request completes once, the FTL loses
/// no page, suspensions happen and each one resumes (time spent suspended counted).
#[test]
fn every_back_end_runs_with_suspension() {
    let mut c = lagoon_core::testing::tiny();
    c.flash.suspend = Suspend::ProgramErase;
    c.flash.suspend_ns = 5_000.0;
    c.flash.resume_ns = 5_000.0;
    c.validate().unwrap();
    let w = "syn:read=50,size=4k,addr=uniform,count=10000";
    for arch in Arch::CHOICES {
        let mut c = c.clone();
        if arch == Arch::Net {
            // The network layer needs a mesh that holds the drive's chips: 2 x 2.
            c.network.rows = 2;
            c.network.cols = 2;
            c.validate().unwrap();
        }
        let o = verified_run(&c, arch, w, 3, false);
        assert_eq!(o.flows[0].completed, 10_000, "{arch}");
        o.consistency.clone().unwrap().unwrap();
        assert!(o.flash.suspensions > 0, "{arch}: no suspension");
        assert!(
            o.flash.suspended_ns > 0 && o.flash.reads_during_suspend > 0,
            "{arch}"
        );
        assert!(o.ftl.erases > 0, "{arch}: GC ran");
        assert_eq!(o.flash.resumes, o.flash.suspensions, "{arch}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever the policy, latencies and workload: every request completes once, every
    /// suspended operation resumes once (and so completes once: a second completion would
    /// free its transactions twice), and no logical page is lost or duplicated.
    #[test]
    fn suspended_operations_complete_once_and_lose_no_page(
        seed in 0u64..1000,
        read in 10u32..90,
        erase_only in proptest::bool::ANY,
        all_reads in proptest::bool::ANY,
        max in 1u32..6,
        suspend_us in 0u32..60,
        resume_us in 0u32..60,
        venice in proptest::bool::ANY,
        preemptive in proptest::bool::ANY,
    ) {
        let mut c = lagoon_core::testing::tiny();
        c.precondition.mode = lagoon_core::config::PreconditionMode::Aged;
        c.flash.suspend = if erase_only { Suspend::Erase } else { Suspend::ProgramErase };
        c.flash.suspend_reads = if all_reads { SuspendReads::All } else { SuspendReads::Host };
        c.flash.max_suspends = max;
        c.flash.suspend_ns = suspend_us as f64 * 1000.0;
        c.flash.resume_ns = resume_us as f64 * 1000.0;
        if preemptive {
            c.ftl.gc_mode = lagoon_core::config::GcMode::Preemptive;
        }
        c.validate().unwrap();
        let arch = if venice { Arch::Venice } else { Arch::Baseline };
        let w = format!("syn:read={read},size=uniform:4k-16k,addr=hotcold:80/20,count=3000");
        let o = verified_run(&c, arch, &w, seed, false);
        proptest::prop_assert_eq!(o.flows[0].completed, 3000);
        proptest::prop_assert!(o.consistency.clone().unwrap().is_ok());
        proptest::prop_assert_eq!(o.flash.resumes, o.flash.suspensions);
        proptest::prop_assert!(o.ftl.erases > 0);
    }
}
