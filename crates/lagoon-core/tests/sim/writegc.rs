//! The write and GC path (issue 33): DFTL batch write-back of translation pages, the
//! steady state GC converges to, multi-plane programs, against hand-computed cases and
//! closed forms.

use crate::common::tiny;
use lagoon_core::config::{MappingConfig, SsdConfig};
use lagoon_core::host::{Flow, Replay};
use lagoon_core::interconnect::Arch;
use lagoon_core::sim::{Outcome, Simulator};
use lagoon_workload::{IoRequest, Op};

/// Page writes of `lpas`, in order, one outstanding at a time.
fn write_pages(cfg: &SsdConfig, lpas: &[u64]) -> Outcome {
    let reqs: Vec<IoRequest> = lpas
        .iter()
        .map(|&l| IoRequest {
            arrival_ns: 0,
            offset_bytes: l * cfg.flash.page_bytes as u64,
            size_bytes: cfg.flash.page_bytes,
            op: Op::Write,
            device: 0,
        })
        .collect();
    let flow = Flow {
        name: "w".into(),
        source: Box::new(reqs.into_iter().map(Ok)),
        replay: Replay::Closed { depth: 1 },
    };
    let mut sim = Simulator::new(cfg, Arch::Baseline, vec![flow], 1);
    sim.set_verify(true);
    sim.run(|_| {}).unwrap()
}

/// DFTL batch update (Gupta et al. §3.3; MQSim `Address_Mapping_Unit_Page_Level.cpp`
/// 1582-1600): `k` dirty entries of one translation page leave the CMT in one write-back,
/// one translation-page program, whichever of them is evicted first; the others stay cached
/// clean and cost nothing when they go.
#[test]
fn a_batch_write_back_of_k_dirty_entries_costs_one_translation_page_program() {
    for k in [1u64, 2, 5, 9] {
        let mut c = tiny();
        c.cache.enabled = false;
        c.precondition.occupancy = 0.0;
        // 512 entries per translation page; room for k + 1 entries.
        c.ftl.translation_entry_bytes = 8;
        c.ftl.mapping = MappingConfig::Demand {
            cmt_bytes: 8 * (k + 1),
            entry_bytes: 8,
        };
        // k pages of translation page 0, then k + 1 pages of k + 1 other translation pages:
        // the second of those evicts page 0's first entry (dirty, with its k - 1 neighbours),
        // the next ones evict page 0's other entries (now clean).
        let mut lpas: Vec<u64> = (0..k).collect();
        lpas.extend((1..=k + 1).map(|j| 512 * j));
        let o = write_pages(&c, &lpas);
        assert_eq!(o.consistency, Some(Ok(())));
        assert_eq!(o.ftl.translation_writebacks, 1, "k = {k}");
        assert_eq!(o.ftl.translation_entries_written, k, "k = {k}");
        assert_eq!(o.ftl.translation_page_writes, 1, "k = {k}: one program");
        assert_eq!(o.flash.mapping_writes, 1, "k = {k}");
        assert_eq!(
            o.flash.page_programs,
            2 * k + 1 + 1,
            "k = {k}: host pages + one"
        );
    }
}

/// The first `n` logical pages whose static plane is `plane`.
fn lpas_on_plane(cfg: &SsdConfig, plane: u32, n: usize) -> Vec<u32> {
    let g = lagoon_core::flash::Geometry::new(&cfg.flash, cfg.ftl.allocation);
    (0u64..)
        .filter(|&l| g.locate(l).0 == plane)
        .take(n)
        .map(|l| l as u32)
        .collect()
}

/// Same-offset programs (Venice §2; MQSim `TSU_Base.cpp` 86-97) with in-order pages: five
/// programs for plane 1 and three for plane 0 of one die, queued at once. The first starts
/// alone on plane 1 (the others come while it runs), so plane 1's frontier is one page ahead. The die then
/// starts on plane 0, the plane behind (multiplane.rs), so the frontiers meet and the next two
/// operations are two-plane programs at one offset; plane 1's last two go alone: 6 operations,
/// two of them pairs. Always starting at the oldest program would keep plane 1 ahead and pair
/// none (8 operations); `any` pairs regardless of offset (5, three pairs).
#[test]
fn a_multi_plane_program_pair_forms_at_the_same_offset_once_the_lagging_plane_catches_up() {
    use lagoon_core::config::Multiplane;
    use lagoon_core::ssd::probe::ProbeOp;
    for (rule, ops, pairs) in [(Multiplane::SameOffset, 6, 2), (Multiplane::Any, 5, 3)] {
        let mut c = tiny();
        c.flash.multiplane = rule;
        // Plane 1's first program at time 0, the others 1 ps later (its die busy by then).
        let mut progs: Vec<(u64, ProbeOp)> = lpas_on_plane(&c, 1, 5)
            .into_iter()
            .enumerate()
            .map(|(i, lpa)| (u64::from(i > 0), ProbeOp::Program { lpa }))
            .collect();
        progs.extend(
            lpas_on_plane(&c, 0, 3)
                .into_iter()
                .map(|lpa| (1, ProbeOp::Program { lpa })),
        );
        let done = Simulator::probe_flash_at(&c, Arch::Baseline, &progs).0;
        let mut ends = done.clone();
        ends.sort_unstable();
        ends.dedup();
        let shared = ends
            .iter()
            .filter(|&&t| done.iter().filter(|&&d| d == t).count() == 2)
            .count();
        assert_eq!((ends.len(), shared), (ops, pairs), "{rule:?}: {done:?}");
    }
}

/// Write amplification (host plus GC page programs over host pages) in consecutive windows
/// of `frac` drive writes of a random 4 KB write run, ideal mapping, cache off, closed loop
/// at depth 16, from the run's timeline (10 us windows, regrouped by host bytes written).
fn windowed_wa(
    mode: lagoon_core::config::PreconditionMode,
    drive_writes: f64,
    frac: f64,
) -> Vec<f64> {
    let mut c = tiny();
    c.flash.blocks_per_plane = 128;
    c.flash.pages_per_block = 64;
    c.ftl.overprovisioning = 0.15;
    c.ftl.gc_threshold = 0.03;
    c.ftl.mapping = MappingConfig::Ideal;
    c.cache.enabled = false;
    c.precondition.occupancy = 1.0;
    c.precondition.mode = mode;
    c.validate().unwrap();
    let data = (c.logical_pages() as f64 / 8.0).floor() * 8.0;
    let n = (drive_writes * data) as u64;
    let w = format!("syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:16,count={n}");
    let spec = lagoon_workload::SyntheticSpec::parse(&w).unwrap();
    let cap = Simulator::flow_capacity_bytes(&c, 1);
    let gen = lagoon_workload::SyntheticGenerator::new(&spec, cap, 3).unwrap();
    let flow = Flow {
        name: w,
        source: Box::new(gen.map(Ok)),
        replay: Replay::Closed { depth: 16 },
    };
    let mut sim = Simulator::new(&c, Arch::Baseline, vec![flow], 3);
    sim.set_timeline(lagoon_core::time::PS_PER_US * 10);
    let o = sim.run(|_| {}).unwrap();
    let tl = o.timeline.expect("timeline");
    let page = c.flash.page_bytes as f64;
    let step = frac * data * page;
    let (mut out, mut io, mut gc) = (Vec::new(), 0.0, 0.0);
    for i in 0..tl.io_bytes.v.len().max(tl.gc_bytes.v.len()) {
        io += *tl.io_bytes.v.get(i).unwrap_or(&0) as f64;
        gc += *tl.gc_bytes.v.get(i).unwrap_or(&0) as f64;
        if io >= step {
            out.push((io + gc) / io);
            io = 0.0;
            gc = 0.0;
        }
    }
    out
}

/// Steady-state preconditioning (functional warm-up, `ssd/ftl/steady.rs`): write amplification
/// does not drift when the timed run starts. Every window of 0.05 drive writes is within 15 %
/// of the mean over drive writes 2-3 of a long run (measured: 3.73-4.17 around 3.96). The aged
/// layout with invalid pages spread uniformly starts 29 % above it (5.11), and drifts down.
#[test]
fn with_steady_preconditioning_write_amplification_does_not_drift() {
    use lagoon_core::config::PreconditionMode;
    let tail_mean = |wa: &[f64]| {
        let tail = &wa[40..wa.len().min(60)];
        tail.iter().sum::<f64>() / tail.len() as f64
    };
    let wa = windowed_wa(PreconditionMode::Steady, 3.0, 0.05);
    assert!(wa.len() >= 59, "{}", wa.len());
    let mean = tail_mean(&wa);
    for (i, w) in wa.iter().enumerate() {
        assert!(
            (w / mean - 1.0).abs() < 0.15,
            "window {i}: {w:.3} vs mean {mean:.3}: {wa:.3?}"
        );
    }
    let aged = windowed_wa(PreconditionMode::Aged, 3.0, 0.05);
    assert!(aged[0] / tail_mean(&aged) > 1.15, "{aged:.3?}");
}

/// MQSim's write-back policy (`cache.write_policy = "mqsim"`): only a page's first write in
/// its window goes to flash; rewrites stay in DRAM (the buffer is large enough that none is
/// evicted). Ten pages written five times each, one write at a time: ten programs. Lagoon's
/// eager policy programs a rewrite again once the earlier program has started.
#[test]
fn the_mqsim_policy_programs_only_first_writes_in_a_window() {
    use lagoon_core::config::WritePolicyKind;
    let lpas: Vec<u64> = (0..5).flat_map(|_| 0..10u64).collect();
    let mut programs = Vec::new();
    for policy in [WritePolicyKind::Mqsim, WritePolicyKind::Lagoon] {
        let mut c = tiny();
        c.cache.write_policy = policy;
        c.ftl.mapping = MappingConfig::Ideal;
        c.precondition.occupancy = 0.0;
        let o = write_pages(&c, &lpas);
        assert_eq!(o.consistency, Some(Ok(())));
        assert_eq!(o.ftl.host_page_writes, o.flash.page_programs);
        programs.push(o.flash.page_programs);
    }
    assert_eq!(programs[0], 10);
    assert!(programs[1] > 10, "{programs:?}");
}

/// Several victims per plane in flight (`ftl.gc_victims_per_plane`, MQSim's 10): each erase
/// waits for its own victim's moves only, and no logical page is lost (the FTL's invariant
/// scan), with read + program moves, copyback and global destinations alike.
#[test]
fn several_victims_per_plane_keep_every_page() {
    use crate::common::verified_run;
    use lagoon_core::config::GcDestination;
    for (copyback, dest) in [
        (false, GcDestination::SamePlane),
        (true, GcDestination::SamePlane),
        (false, GcDestination::Global),
    ] {
        let mut c = tiny();
        c.ftl.gc_victims_per_plane = 4;
        c.ftl.copyback = copyback;
        c.ftl.gc_destination = dest;
        c.cache.enabled = false;
        let w = "syn:read=10,size=4k,addr=hotcold:80/20,arrival=qd:16,count=20000";
        let o = verified_run(&c, Arch::Baseline, w, 9, false);
        assert_eq!(o.consistency, Some(Ok(())), "{copyback} {dest:?}");
        assert_eq!(o.flows[0].completed, 20_000);
        assert!(o.ftl.erases > 100, "{}", o.ftl.erases);
    }
}

/// Read-modify-write reads only sectors written before (sector validity per page, MQSim's
/// `WrittenStateBitmap`): on a page never written before the run, a write of its first half,
/// the same half again (nothing to merge: no read; reading "the rest of the page" would fetch
/// sectors never written), then its second half (the first half is read and merged). Programs
/// stay whole pages.
#[test]
fn read_modify_write_reads_only_sectors_written_before() {
    let mut c = tiny();
    c.cache.enabled = false;
    c.ftl.mapping = MappingConfig::Ideal;
    c.precondition.occupancy = 0.0;
    let half = c.flash.page_bytes / 2;
    let base = 7 * c.flash.page_bytes as u64;
    let reqs: Vec<IoRequest> = [(0, half), (0, half), (half, half)]
        .iter()
        .map(|&(off, size)| IoRequest {
            arrival_ns: 0,
            offset_bytes: base + off as u64,
            size_bytes: size,
            op: Op::Write,
            device: 0,
        })
        .collect();
    let flow = Flow {
        name: "w".into(),
        source: Box::new(reqs.into_iter().map(Ok)),
        replay: Replay::Closed { depth: 1 },
    };
    let mut sim = Simulator::new(&c, Arch::Baseline, vec![flow], 1);
    sim.set_verify(true);
    let o = sim.run(|_| {}).unwrap();
    assert_eq!(o.consistency, Some(Ok(())));
    assert_eq!(o.flash.rmw_reads, 1);
    assert_eq!(o.flash.page_programs, 3);
}

/// Random 4 KB writes with GC on a steady-state drive, ideal table against the demand table
/// (`cached-only` GC updates: only host writes dirty entries). Returns (ideal WA, demand WA,
/// `k` = dirty entries per translation write-back, translation programs per host write).
fn demand_against_ideal(cmt_entries: u64) -> (f64, f64, f64, f64) {
    use lagoon_core::config::{GcMappingUpdate, PreconditionMode};
    let mut out = Vec::new();
    for demand in [false, true] {
        let mut c = tiny();
        c.flash.blocks_per_plane = 128;
        c.flash.pages_per_block = 64;
        c.ftl.overprovisioning = 0.15;
        c.ftl.gc_threshold = 0.03;
        c.ftl.gc_mapping_update = GcMappingUpdate::CachedOnly;
        c.ftl.translation_entry_bytes = 8;
        c.ftl.mapping = if demand {
            MappingConfig::Demand {
                cmt_bytes: 8 * cmt_entries,
                entry_bytes: 8,
            }
        } else {
            MappingConfig::Ideal
        };
        c.cache.enabled = false;
        c.precondition.occupancy = 1.0;
        c.precondition.mode = PreconditionMode::Steady;
        let n = c.logical_pages();
        let w = format!("syn:read=0,size=4k,addr=uniform,align=4k,arrival=qd:16,count={n}");
        let o = crate::common::verified_run(&c, Arch::Baseline, &w, 5, false);
        assert_eq!(o.consistency, Some(Ok(())));
        let host = o.ftl.host_page_writes as f64;
        let k =
            o.ftl.translation_entries_written as f64 / o.ftl.translation_writebacks.max(1) as f64;
        out.push((
            o.flash.page_programs as f64 / host,
            k,
            o.ftl.translation_page_writes as f64 / host,
        ));
    }
    (out[0].0, out[1].0, out[1].1, out[1].2)
}

/// DFTL batch update at steady state: one translation program per `k` host writes, `k` the
/// dirty entries a write-back carried, and write amplification within 15 % of the ideal
/// table's times (1 + 1/k): a translation program takes flash space as a user page does, so GC
/// amplifies it alike. (The ideal table's plus 1/k, issue 33's form, holds only while GC adds
/// little: here 3.96 + 0.18 = 4.14 against 4.91.)
#[test]
fn demand_mapping_adds_one_translation_program_per_k_host_writes() {
    for cmt in [512, 2048] {
        let (ideal, demand, k, mapping) = demand_against_ideal(cmt);
        assert!(k > 1.0, "{k}");
        assert!(
            (mapping * k - 1.0).abs() < 0.05,
            "{mapping} per host write, k = {k}"
        );
        let expect = ideal * (1.0 + 1.0 / k);
        assert!(
            (demand / expect - 1.0).abs() < 0.15,
            "CMT {cmt}: demand {demand:.3} vs ideal {ideal:.3} x (1 + 1/{k:.2})"
        );
    }
}

/// Issue 43: with nothing preconditioned (`occupancy = 0`), a read of a never-written page
/// under `steady` (or `aged`) looked for page 0 in a layout that holds none and was sent one
/// block past its plane (past the last die: index out of bounds in the die scheduler). Every
/// mode now serves it from its own plane; steady's layout is then the fresh drive's, so its
/// run is the sequential one's, event for event.
#[test]
fn reads_of_a_drive_preconditioned_to_nothing_stay_on_their_plane() {
    use lagoon_core::config::PreconditionMode;
    let w = "syn:read=70,size=16k,addr=uniform,arrival=qd:16,count=2000";
    let run = |mode| {
        let mut c = tiny();
        c.precondition.occupancy = 0.0;
        c.precondition.mode = mode;
        let o = crate::common::verified_run(&c, Arch::Baseline, w, 3, false);
        assert_eq!(o.consistency, Some(Ok(())), "{mode:?}");
        assert!(o.ftl.unwritten_page_reads > 1000, "{mode:?}");
        o
    };
    let seq = run(PreconditionMode::Sequential);
    let steady = run(PreconditionMode::Steady);
    run(PreconditionMode::Aged);
    assert_eq!(
        (steady.sim_time, steady.events, steady.flash.page_reads),
        (seq.sim_time, seq.events, seq.flash.page_reads)
    );
}
