//! The FTL's own rules: mapping invariants, allocation, GC victims, preconditioning.
use super::*;
use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};

/// The tiny drive ([`crate::testing::tiny`]) at 70 % occupancy.
pub(crate) fn tiny_config() -> SsdConfig {
    let mut c = crate::testing::tiny();
    c.precondition.occupancy = 0.7;
    c
}

/// Drive GC synchronously (no timing): move every valid page, then erase.
fn collect(ftl: &mut Ftl, plane: u32) {
    if let Some(v) = ftl.start_gc(plane) {
        let mut moves = Vec::new();
        ftl.for_each_valid(plane, v, |ppa, tag| moves.push((ppa, tag)));
        for (ppa, tag) in moves {
            if ftl.is_current(tag, ppa) {
                ftl.relocate(tag, ppa);
            }
        }
        ftl.erase_done(plane, v);
    }
}

#[test]
fn precondition_is_consistent_and_counts_space() {
    let c = tiny_config();
    let ftl = Ftl::new(&c, 1);
    ftl.check_consistency().unwrap();
    // 64*16 pages * 0.8 = 819 logical per plane; 70 % = 573 -> 36 blocks (last partial)
    assert_eq!(ftl.logical_pages_per_plane, 819);
    assert_eq!(ftl.precondition_pages_per_plane, 573);
    assert_eq!(ftl.free_blocks(0), 64 - 36);
}

#[test]
fn overwrite_invalidates_home_page() {
    let c = tiny_config();
    let mut ftl = Ftl::new(&c, 1);
    let home = ftl.lookup(0);
    assert_eq!(ftl.valid_tag(home), Some(0));
    let p = ftl.write(0);
    assert_ne!(p, home);
    assert_eq!(ftl.valid_tag(home), None);
    assert_eq!(ftl.lookup(0), p);
    ftl.check_consistency().unwrap();
}

/// 2 channels x 2 chips x 2 dies x 2 planes: 4 chips, 8 dies; die `d` is in chip `d / 2`.
fn two_die_ftl() -> Ftl {
    let mut c = tiny_config();
    c.flash.dies_per_chip = 2;
    Ftl::new(&c, 1)
}

/// Dynamic mapping's scan (MQSimNet §IV.A) with hand-set idle dies: the static die (chip 1,
/// die 1, plane 1) is busy; where does its write go?
#[test]
fn dynamic_mapping_scan_picks_the_first_idle_die_from_the_static_one() {
    use DynamicMapping::{Chip, Die, Static};
    let ftl = two_die_ftl();
    let g = &ftl.geo;
    assert_eq!((g.dies_per_chip, g.chips, g.dies), (2, 4, 8));
    let fixed = 3 * g.planes_per_die + 1; // die 3 = chip 1, die index 1; plane index 1
    let lpa = g.lpa_of(fixed, 5);
    assert_eq!(ftl.plane_of_lpa(lpa), fixed);
    let plane_of_die = |d: u32| d * g.planes_per_die + 1;
    let only = |idle: &'static [u32]| move |d: u32| idle.contains(&d);

    // Everything else idle: chip takes the next chip's die 1 (die 5), die the next die (4).
    let all_but_static = |d: u32| d != 3;
    assert_eq!(ftl.write_plane(lpa, Static, all_but_static), fixed);
    assert_eq!(ftl.write_plane(lpa, Chip, all_but_static), plane_of_die(5));
    assert_eq!(ftl.write_plane(lpa, Die, all_but_static), plane_of_die(4));
    // The static die idle: it is the first candidate of every policy.
    for m in [Static, Chip, Die] {
        assert_eq!(ftl.write_plane(lpa, m, |_| true), fixed);
    }
    // Only die index 0 idle (dies 0, 2, 4, 6): chip must keep die index 1, so static;
    // die takes the first from die 3 on, wrapping: 4.
    assert_eq!(ftl.write_plane(lpa, Chip, only(&[0, 2, 4, 6])), fixed);
    assert_eq!(
        ftl.write_plane(lpa, Die, only(&[0, 2, 4, 6])),
        plane_of_die(4)
    );
    // Scan order wraps around the drive: only chips 0 and 1's other die idle.
    assert_eq!(ftl.write_plane(lpa, Chip, only(&[1, 2])), plane_of_die(1));
    assert_eq!(ftl.write_plane(lpa, Die, only(&[1, 2])), plane_of_die(1));
    assert_eq!(ftl.write_plane(lpa, Chip, only(&[7, 1])), plane_of_die(7));
    // Every die busy: the static plane.
    for m in [Static, Chip, Die] {
        assert_eq!(ftl.write_plane(lpa, m, |_| false), fixed);
    }
}

/// A candidate whose plane cannot take a user write is skipped, and a write placed away
/// from its static plane is counted and found through the mapping table.
#[test]
fn dynamic_mapping_skips_full_planes_and_counts_redirects() {
    use DynamicMapping::{Chip, Die};
    let mut ftl = two_die_ftl();
    let g = ftl.geo.clone();
    let fixed = 3 * g.planes_per_die + 1;
    let lpa = g.lpa_of(fixed, 5);
    // Fill die 5's plane 1 (the chip policy's first choice) to its GC reserve.
    let full = 5 * g.planes_per_die + 1;
    let filler = g.lpa_of(full, 0);
    while ftl.can_allocate(full, Stream::User) {
        ftl.write(filler);
    }
    assert_eq!(ftl.counters.dynamic_redirects, 0);
    let busy = |d: u32| d != 3;
    assert_eq!(ftl.write_plane(lpa, Chip, busy), 7 * g.planes_per_die + 1);
    assert_eq!(ftl.write_plane(lpa, Die, busy), 4 * g.planes_per_die + 1);

    let to = ftl.write_plane(lpa, Chip, busy);
    let ppa = ftl.write_to(lpa, to);
    assert_eq!(ftl.counters.dynamic_redirects, 1);
    assert_eq!(ftl.lookup(lpa), ppa);
    assert_eq!(g.plane_of_ppa(ppa), to);
    ftl.write_to(lpa, fixed); // back home: not a redirect
    assert_eq!(ftl.counters.dynamic_redirects, 1);
    assert_eq!(ftl.check_consistency(), Ok(()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random overwrites forcing many GC cycles never lose or duplicate a logical page.
    #[test]
    fn no_logical_page_lost_under_gc(seed in 0u64..1000, hot in 1u64..4) {
        let c = tiny_config();
        let mut ftl = Ftl::new(&c, seed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let span = ftl.logical_pages / hot;
        for i in 0..20_000u32 {
            let lpa = rng.random_range(0..span);
            let plane = ftl.plane_of_lpa(lpa);
            while ftl.gc_due(plane) || !ftl.can_allocate(plane, Stream::User) {
                collect(&mut ftl, plane);
            }
            if i % 97 == 0 {
                let t = ftl.translation_page_of(lpa);
                let tp = ftl.plane_of_translation_page(t);
                while !ftl.can_allocate(tp, Stream::User) { collect(&mut ftl, tp); }
                ftl.write_translation_page(t);
            }
            ftl.write(lpa);
        }
        prop_assert!(ftl.counters.erases > 50, "only {} erases", ftl.counters.erases);
        prop_assert_eq!(ftl.check_consistency(), Ok(()));
    }
}

#[test]
fn a_trimmed_page_holds_no_physical_page_until_written_again() {
    let c = tiny_config();
    let mut ftl = Ftl::new(&c, 1);
    let home = ftl.lookup(0);
    assert!(ftl.trim(0), "a preconditioned page held data");
    assert_eq!(
        ftl.valid_tag(home),
        None,
        "its page is invalid: GC will not move it"
    );
    assert_eq!(ftl.lookup(0), TRIMMED);
    assert!(
        !ftl.has_data(0),
        "a partial write over it needs no read-modify-write"
    );
    assert!(!ftl.trim(0), "trimming it again frees nothing");
    assert_eq!(ftl.counters.trimmed_pages, 1);
    ftl.check_consistency().unwrap();
    let p = ftl.write(0);
    assert_eq!(ftl.lookup(0), p);
    assert!(ftl.trim(0));
    assert_eq!(ftl.valid_tag(p), None);
    ftl.check_consistency().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Writes and trims in random order under many GC cycles: every page written and not
    /// trimmed since keeps exactly one valid physical page, a trimmed one has none, and GC
    /// never moves a trimmed page (its moves count only live pages).
    #[test]
    fn trims_never_lose_or_duplicate_a_page(seed in 0u64..1000, trim_pct in 5u32..60) {
        let c = tiny_config();
        let mut ftl = Ftl::new(&c, seed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let span = ftl.logical_pages / 2;
        // Per logical page: Some(true) written in the run, Some(false) trimmed, None untouched.
        let mut state = vec![None; span as usize];
        for _ in 0..20_000u32 {
            let lpa = rng.random_range(0..span);
            if rng.random_range(0..100) < trim_pct {
                ftl.trim(lpa);
                state[lpa as usize] = Some(false);
                continue;
            }
            let plane = ftl.plane_of_lpa(lpa);
            while ftl.gc_due(plane) || !ftl.can_allocate(plane, Stream::User) {
                let moves = ftl.counters.gc_page_moves;
                let Some(v) = ftl.start_gc(plane) else { break };
                let mut pages = Vec::new();
                ftl.for_each_valid(plane, v, |ppa, tag| pages.push((ppa, tag)));
                for &(_, tag) in &pages {
                    prop_assert!(tag & MAP_TAG != 0 || (tag as u64) >= span
                        || state[tag as usize] != Some(false), "GC would move trimmed page {tag}");
                }
                for (ppa, tag) in pages {
                    ftl.relocate(tag, ppa);
                }
                ftl.erase_done(plane, v);
                prop_assert!(ftl.counters.gc_page_moves >= moves);
            }
            ftl.write(lpa);
            state[lpa as usize] = Some(true);
        }
        prop_assert!(ftl.counters.erases > 20, "only {} erases", ftl.counters.erases);
        prop_assert_eq!(ftl.check_consistency(), Ok(()));
        for (lpa, s) in state.iter().enumerate() {
            let lpa = lpa as u64;
            match s {
                Some(true) => {
                    let p = ftl.lookup(lpa);
                    prop_assert_eq!(ftl.valid_tag(p), Some(lpa as u32));
                }
                Some(false) => {
                    prop_assert!(ftl.is_trimmed(lpa));
                    prop_assert_eq!(ftl.lookup(lpa), TRIMMED);
                }
                None => {}
            }
        }
    }
}
