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
