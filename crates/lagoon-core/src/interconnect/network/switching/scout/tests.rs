//! Venice's scouts: Figure 8, Algorithm 1's cases on a live mesh, Eq. 1, the reachability
//! searches against plain ones, and a property test of the reservations.

use super::super::super::topology::mesh2d::{DOWN, LEFT, MESH_PORTS};
use super::super::reservation::FREE;
use super::*;
use crate::engine::EventQueue;
use proptest::prelude::*;

fn config(rows: u32, cols: u32, fcs: u32) -> SsdConfig {
    let mut c = SsdConfig::default();
    c.flash.channels = rows;
    c.flash.chips_per_channel = cols;
    c.network.controllers = fcs;
    c.validate().unwrap();
    c
}

/// Mark controller `fc` as holding a circuit through `routers` (consecutive neighbours).
fn hold(v: &mut Scouts, fc: usize, routers: &[u32]) {
    for w in routers.windows(2) {
        let p = MESH_PORTS
            .into_iter()
            .find(|&p| v.mesh.neighbor(w[0], p) == Some(w[1]))
            .unwrap();
        let l = link_slot(w[0], p, w[1]);
        assert_eq!(v.links.owner(l), FREE);
        v.links.reserve(l, fc as u32, 0);
        v.set_free(w[0], p, w[1], false);
        v.fcs[fc].path.push(Hop {
            router: w[0],
            next: w[1],
            link: l as u32,
            in_port: INJECT,
            out_port: p,
        });
    }
    v.fcs[fc].active = true;
    v.idle -= 1;
    v.fcs[fc].circuit = true;
    v.circuits += 1;
}

/// Run the interconnect alone until no event is left, checking the reservations after
/// every event; returns (time, die, conflict) per transfer.
fn drain(v: &mut Scouts, q: &mut EventQueue<IcEvent>) -> Vec<(Ps, u32, bool)> {
    crate::interconnect::testutil::drain(v, q, |v| v.check_reservations().unwrap())
}

/// Venice Figure 8: FC0, FC1, FC2 hold paths; FC3 is the only free controller and F2 the
/// destination. Every minimal path from FC3 is blocked; the scout finds a non-minimal one.
#[test]
fn figure_8_finds_a_nonminimal_conflict_free_path() {
    let mut c = config(4, 5, 4);
    // Every event through the queue, so the circuit can be inspected before it ends.
    c.network.lookahead = false;
    let mut v = Scouts::new(&c, 1).unwrap();
    assert_eq!(v.mesh.fc_router, vec![0, 5, 10, 15]);
    hold(&mut v, 0, &[0, 1, 6]);
    hold(&mut v, 1, &[5, 6, 7, 8]);
    hold(&mut v, 2, &[10, 11, 12, 7]);
    let mut q = EventQueue::<IcEvent>::new();
    v.submit(
        0,
        Transfer {
            die: 2,
            chip: 2,
            commands: 1,
            command_ps: 0,
            bytes: 0,
        },
        &mut q,
    );
    assert!(v.fcs[3].active, "FC3 is the only free controller");
    // Run until FC3's scout is home with a path (its circuit is up), then inspect it.
    while let Some((now, ev)) = q.pop() {
        if let IcEvent::Net(e) = ev {
            v.on_event(now, e, &mut q);
        }
        if v.fcs[3].circuit {
            let path: Vec<u32> = v.fcs[3].path.iter().map(|h| h.router).collect();
            assert!(
                path.len() as u32 + 1 > v.mesh.fc_distance(3, 2),
                "non-minimal: {path:?}"
            );
            assert_eq!(v.fcs[3].attempts, 1, "found on the first scout");
            v.check_reservations().unwrap();
            return;
        }
    }
    panic!("FC3 never reserved a path");
}

#[test]
fn algorithm_1_minimal_cases_with_free_links() {
    let c = config(5, 5, 5);
    let mut v = Scouts::new(&c, 3).unwrap();
    let centre = 12; // (2, 2)
    let cases: [(u32, &[Port]); 8] = [
        (18, &[RIGHT, UP]),  // case 1: dx > 0, dy > 0
        (8, &[RIGHT, DOWN]), // case 2: dx > 0, dy < 0
        (13, &[RIGHT]),      // case 3
        (16, &[LEFT, UP]),   // case 4
        (6, &[LEFT, DOWN]),  // case 5
        (11, &[LEFT]),       // case 6
        (17, &[UP]),         // case 7
        (7, &[DOWN]),        // case 8
    ];
    for (dest, allowed) in cases {
        let mut seen = 0u8;
        for _ in 0..64 {
            let p = v.choose_port(0, centre, dest, INJECT).unwrap();
            assert!(allowed.contains(&p), "dest {dest}: port {p}");
            seen |= 1 << p;
        }
        assert_eq!(
            seen.count_ones() as usize,
            allowed.len(),
            "dest {dest}: both minimal ports get picked"
        );
    }
}

#[test]
fn algorithm_1_ejects_at_destination() {
    let c = config(4, 4, 4);
    let mut v = Scouts::new(&c, 1).unwrap();
    let mut q = EventQueue::<IcEvent>::new();
    // chip 4 sits on FC1's own router: distance 1 (the FC link), no mesh link reserved.
    v.submit(
        0,
        Transfer {
            die: 4,
            chip: 4,
            commands: 0,
            command_ps: 0,
            bytes: 100,
        },
        &mut q,
    );
    let done = drain(&mut v, &mut q);
    let hop = 3 * 1000; // (1 router cycle + 2 flits) x 1 ns
                        // scout in (1 hop), back over the circuit (1 + 2 flits), transfer (1 + 100 bytes)
    assert_eq!(done, vec![(hop + 3_000 + 101_000, 4, false)]);
}

#[test]
fn algorithm_1_misroutes_then_backtracks() {
    let c = config(3, 3, 3);
    let mut v = Scouts::new(&c, 5).unwrap();
    // centre (4) wants to go right to 5; RIGHT is taken by FC2.
    hold(&mut v, 2, &[4, 5]);
    for _ in 0..16 {
        let p = v.choose_port(0, 4, 5, LEFT).unwrap();
        assert!(
            p == UP || p == DOWN,
            "misroute over a free non-input port, got {p}"
        );
    }
    // With UP and DOWN taken too, only the input is left: backtrack (line 48).
    hold(&mut v, 1, &[1, 4, 7]);
    assert_eq!(v.choose_port(0, 4, 5, LEFT), None);
}

/// A xorshift64 source of choices among `n`.
fn xorshift(mut rng: u64) -> impl FnMut(u32) -> u32 {
    move |n| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as u32
    }
}

/// Reserve every link of the mesh.
fn reserve_all(v: &mut Scouts) {
    for r in 0..v.mesh.routers() {
        for p in [UP, RIGHT] {
            if let Some(next) = v.mesh.neighbor(r, p) {
                v.set_free(r, p, next, false);
            }
        }
    }
}

/// Free the links of a random walk of `steps` tries from `start`; the router it ends at.
fn free_walk(v: &mut Scouts, start: u32, steps: u32, rand: &mut impl FnMut(u32) -> u32) -> u32 {
    let mut at = start;
    for _ in 0..steps {
        let p = MESH_PORTS[rand(4) as usize];
        if let Some(next) = v.mesh.neighbor(at, p) {
            if v.nodes[at as usize].free & 1 << p == 0 {
                v.set_free(at, p, next, true);
            }
            at = next;
        }
    }
    at
}

/// The word-parallel reachability (one word, and several with vertical shifts of under,
/// exactly and over 64 bits) against a plain breadth-first search over free ports.
#[test]
fn reachability_matches_a_plain_search() {
    let mut rand = xorshift(0x2545_f491_4f6c_dd1d);
    let one_word = [
        (4, 4),
        (8, 8),
        (3, 5),
        (16, 4),
        (4, 16),
        (1, 64),
        (64, 1),
        (2, 32),
    ];
    let multi_word = [(9, 9), (3, 70), (2, 64), (2, 130), (32, 32)];
    for (rows, cols) in one_word.into_iter().chain(multi_word) {
        let c = config(rows, cols, rows);
        for _ in 0..400 {
            let mut v = Scouts::new(&c, 1).unwrap();
            let n = rows * cols;
            // Every link reserved but those of a random walk, so each link of the walk
            // (word boundaries included) matters.
            reserve_all(&mut v);
            let start = rand(n);
            let steps = rand(3 * n);
            let at = free_walk(&mut v, start, steps, &mut rand);
            let dest = if rand(2) == 0 { at } else { rand(n) };
            let mut seen = vec![false; n as usize];
            let mut todo = vec![start];
            seen[start as usize] = true;
            while let Some(r) = todo.pop() {
                for p in MESH_PORTS {
                    if v.nodes[r as usize].free & 1 << p != 0 {
                        let next = v.mesh.neighbor(r, p).unwrap();
                        if !seen[next as usize] {
                            seen[next as usize] = true;
                            todo.push(next);
                        }
                    }
                }
            }
            let want = seen[dest as usize];
            assert_eq!(
                v.path_exists(start, dest),
                want,
                "{rows}x{cols} {start}->{dest}"
            );
        }
    }
}

/// While the links stay as they are, reachability searches share the router sets they
/// found (`joined`): every answer must equal a fresh search's, for random free links
/// (a few random walks in an otherwise reserved mesh) and random controllers and
/// destinations asked in turn.
#[test]
fn shared_reachability_matches_fresh_searches() {
    let mut rand = xorshift(0x9e37_79b9_7f4a_7c15);
    for (rows, cols) in [(4, 4), (8, 8), (3, 5), (16, 4), (4, 16), (2, 32)] {
        let c = config(rows, cols, rows);
        for _ in 0..300 {
            let mut v = Scouts::new(&c, 1).unwrap();
            let n = rows * cols;
            reserve_all(&mut v);
            for _ in 0..1 + rand(4) {
                let start = rand(n);
                let steps = rand(2 * n);
                free_walk(&mut v, start, steps, &mut rand);
            }
            (v.joined, v.share_reach) = (Vec::new(), true);
            for _ in 0..3 * rows {
                let fc = rand(rows) as usize;
                let dest = rand(n);
                v.fcs[fc].dest = dest;
                let want = v.path_exists(v.mesh.fc_router[fc], dest);
                assert_eq!(v.reachable(fc), want, "{rows}x{cols} fc {fc} -> {dest}");
            }
        }
    }
}

/// A scout's per-router table is stamped, not cleared: when the stamps wrap, entries of
/// a scout 2^16 launches back must not count. Tables pre-filled with such entries (ports
/// tried, visits at the bound) and stamps about to wrap give the same transfers as fresh
/// controllers; without the clear on wrap the stale entries would turn scouts back.
#[test]
fn stamps_wrapping_change_nothing() {
    let c = config(5, 6, 3);
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for seed in 0..16 {
        let xfers: Vec<(u32, u32)> = (0..24)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                ((rng % 30) as u32, (rng >> 32) as u32 % 2048)
            })
            .collect();
        let run = |stale: bool| {
            let mut v = Scouts::new(&c, seed).unwrap();
            if stale {
                for f in &mut v.fcs {
                    f.stamp = STAMP;
                    f.seen
                        .fill((1 << 16) | ((v.max_visits as u32 + 1) * VISIT) | 0xf);
                }
            }
            let mut q = EventQueue::<IcEvent>::new();
            for (i, &(chip, bytes)) in xfers.iter().enumerate() {
                let t = Transfer {
                    die: i as u32,
                    chip,
                    commands: 1,
                    command_ps: 0,
                    bytes,
                };
                v.submit(0, t, &mut q);
            }
            drain(&mut v, &mut q)
        };
        assert_eq!(run(true), run(false), "seed {seed}");
    }
}

#[test]
fn eq1_transfer_time() {
    let v = Scouts::new(&config(8, 8, 8), 1).unwrap();
    // (distance 5 + 4096 B / 1 B) x 1 ns
    assert_eq!(v.eq1(5, 4096), 4_101_000);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random meshes and concurrent transfers: no link ever in two reservations (checked
    /// after every event), every scout terminates, every transfer completes once, every
    /// reservation is released, no deadlock.
    #[test]
    fn reservations_are_exclusive_and_released(
        rows in 2u32..7, cols in 2u32..7, fc_frac in 1u32..=4, seed in 0u64..1000,
        xfers in proptest::collection::vec((0u32..1000, 0u32..4097, 0u64..20_000), 1..80),
        immediate in any::<bool>(), lookahead in any::<bool>(),
    ) {
        let fcs = (rows * fc_frac / 4).max(1);
        let mut c = config(rows, cols, fcs);
        if immediate { c.network.scout_retry = ScoutRetry::Immediate; }
        // Without lookahead every scout hop is a queue event, so the checks below run
        // after each one.
        c.network.lookahead = lookahead;
        let mut v = Scouts::new(&c, seed).unwrap();
        let mut q = EventQueue::<IcEvent>::new();
        let mut arrivals: Vec<(Ps, Transfer)> = xfers.iter().enumerate().map(|(i, &(chip, bytes, t))| {
            (t * 100, Transfer { die: i as u32, chip: chip % (rows * cols), commands: 1, command_ps: 0, bytes })
        }).collect();
        arrivals.sort_by_key(|a| a.0);
        let mut next = 0;
        let mut done = vec![0u32; arrivals.len()];
        loop {
            let t_ev = q.peek_time();
            let t_arr = arrivals.get(next).map(|a| a.0);
            let arrival_first = matches!((t_ev, t_arr), (None, Some(_))) || matches!((t_ev, t_arr), (Some(te), Some(ta)) if ta < te);
            match (t_ev, t_arr) {
                (_, Some(ta)) if arrival_first => {
                    q.advance_to(ta);
                    v.submit(ta, arrivals[next].1, &mut q);
                    next += 1;
                }
                (Some(_), _) => {
                    let (now, ev) = q.pop().unwrap();
                    match ev {
                        IcEvent::Net(e) => v.on_event(now, e, &mut q),
                        IcEvent::TransferDone { die, .. } => done[die as usize] += 1,
                    }
                }
                _ => break,
            }
            prop_assert_eq!(v.check_reservations(), Ok(()));
            // §4.3 livelock bound: no scout enters a router more than three times (the
            // fourth entry is turned back at once).
            let bound = v.max_visits + 1;
            prop_assert!(v.fcs.iter().all(|c| c.seen.iter().all(|&n| (n & !STAMP) / VISIT <= bound as u32)));
            prop_assert!(q.events_processed() < 5_000_000, "no progress: livelock");
        }
        prop_assert!(done.iter().all(|&n| n == 1), "every transfer completes once: {:?}", done);
        prop_assert_eq!(v.links.held(), 0, "all reservations released");
        prop_assert!(v.fcs.iter().all(|c| !c.active) && v.waiting.is_empty());
    }
}
