//! The live-source seam: requests submitted from outside as the caller moves the clock
//! (`Simulator::submit_live`, `advance_to`) are served exactly as the same requests replayed
//! from a timed flow, and a full submission queue holds them back in arrival order.

use lagoon_core::host::flows::LiveCompletion;
use lagoon_core::host::{Flow, Replay};
use lagoon_core::interconnect::Arch;
use lagoon_core::sim::Simulator;
use lagoon_core::time::{Ps, PS_PER_NS};
use lagoon_workload::{IoRequest, Op};

/// 300 requests, mixed reads and writes of 4-16 KB, arrivals 7.3 us apart on whole ns.
fn requests() -> Vec<IoRequest> {
    (0..300u64)
        .map(|i| IoRequest {
            arrival_ns: 1_000 + i * 7_300,
            offset_bytes: (i * 7_919 % 5_000) * 4096,
            size_bytes: 4096 * (1 + (i % 4) as u32),
            op: if i % 3 == 0 { Op::Write } else { Op::Read },
            device: 0,
        })
        .collect()
}

/// A speed-up that puts the timed arrivals on odd picoseconds.
const SPEEDUP: f64 = 1.000_000_3;

/// When timed replay at [`SPEEDUP`] lets `r` arrive: counted from the first (1,000 ns).
fn arrival(r: &IoRequest) -> Ps {
    ((r.arrival_ns - 1_000) as f64 * PS_PER_NS as f64 / SPEEDUP) as Ps
}

fn flow(replay: Replay, reqs: Vec<IoRequest>) -> Flow {
    Flow {
        name: "f".into(),
        source: Box::new(reqs.into_iter().map(Ok)),
        replay,
    }
}

#[test]
fn live_requests_are_served_as_a_timed_replay_of_them() {
    for arch in Arch::ALL {
        same_as_timed(arch);
    }
}

fn same_as_timed(arch: Arch) {
    let cfg = lagoon_core::config::SsdConfig::load("perf-optimized").unwrap();
    let timed = Simulator::new(
        &cfg,
        arch,
        vec![flow(Replay::Timed { speedup: SPEEDUP }, requests())],
        3,
    )
    .run(|_| {})
    .unwrap();
    let mut live = Simulator::new(&cfg, arch, vec![flow(Replay::Live, vec![])], 3);
    live.start_live().unwrap();
    let mut done: Vec<LiveCompletion> = Vec::new();
    for (i, r) in requests().into_iter().enumerate() {
        // One picosecond before the arrival, then at it. Events at the arrival time itself
        // are handled before the request enters (a timed arrival, scheduled long before,
        // would go first among them): arrivals on odd picoseconds fall on no other event.
        let at = arrival(&r);
        if at > 0 {
            live.advance_to(at - 1).unwrap();
        }
        live.advance_to(at).unwrap();
        assert_eq!(live.now(), at);
        live.submit_live(0, r, 1_000 + i as u64);
        live.take_live_completions(&mut done);
    }
    while let Some(t) = live.next_event_time() {
        live.advance_to(t).unwrap();
    }
    live.take_live_completions(&mut done);
    let live = live.finish_live();
    assert_eq!(done.len(), 300, "every request completes once");
    let mut tags: Vec<u64> = done.iter().map(|c| c.tag).collect();
    tags.sort_unstable();
    assert_eq!(tags, (1_000..1_300).collect::<Vec<_>>());
    assert!(done.windows(2).all(|w| w[0].completed <= w[1].completed));
    for c in &done {
        let r = &requests()[(c.tag - 1_000) as usize];
        assert_eq!(c.arrival, arrival(r));
    }
    // The same drive work, the same latencies, the same end.
    assert_eq!(live.sim_time, timed.sim_time, "{arch}");
    assert_eq!(format!("{:?}", live.flash), format!("{:?}", timed.flash));
    let (a, b) = (&live.flows[0].latency, &timed.flows[0].latency);
    for k in 0..3 {
        assert_eq!(
            format!("{:?}", a.e2e[k].summary()),
            format!("{:?}", b.e2e[k].summary())
        );
        assert_eq!(a.device[k].cdf(), b.device[k].cdf());
    }
}

#[test]
fn a_full_queue_holds_live_requests_back_in_arrival_order() {
    let mut cfg = lagoon_core::testing::tiny();
    cfg.host.io_queue_depth = 2;
    let mut s = Simulator::new(&cfg, Arch::Baseline, vec![flow(Replay::Live, vec![])], 1);
    s.start_live().unwrap();
    let t0: Ps = 5 * PS_PER_NS;
    s.advance_to(t0).unwrap();
    for tag in 0..6 {
        s.submit_live(
            0,
            IoRequest {
                arrival_ns: 5,
                offset_bytes: tag * 4096,
                size_bytes: 4096,
                op: Op::Read,
                device: 0,
            },
            tag,
        );
    }
    while let Some(t) = s.next_event_time() {
        s.advance_to(t).unwrap();
    }
    let mut done = Vec::new();
    s.take_live_completions(&mut done);
    assert_eq!(done.len(), 6);
    assert!(done.iter().all(|c| c.arrival == t0));
    // At most two in the drive at once: the third completes after the first.
    assert!(done[2].completed > done[0].completed);
    let out = s.finish_live();
    assert_eq!(out.flows[0].completed, 6);
    assert_eq!(out.flows[0].replay, Replay::Live);
}

fn req(op: Op, page: u64) -> IoRequest {
    IoRequest {
        arrival_ns: 0,
        offset_bytes: page * 4096,
        size_bytes: 4096,
        op,
        device: 0,
    }
}

fn drain(s: &mut Simulator, done: &mut Vec<LiveCompletion>) {
    while let Some(t) = s.next_event_time() {
        s.advance_to(t).unwrap();
    }
    s.take_live_completions(done);
}

/// A flush completes once the write buffer's data from before it is programmed: after the
/// writes' own completions (acknowledged from DRAM), at once with nothing buffered.
#[test]
fn a_live_flush_waits_for_the_buffered_writes_to_be_programmed() {
    let mut cfg = lagoon_core::config::SsdConfig::load("perf-optimized").unwrap();
    cfg.cache.enabled = true;
    let mut s = Simulator::new(&cfg, Arch::Baseline, vec![flow(Replay::Live, vec![])], 1);
    s.start_live().unwrap();
    s.flush_live(0, 99);
    let mut done = Vec::new();
    s.take_live_completions(&mut done);
    assert_eq!(
        done.len(),
        1,
        "nothing buffered: the flush completes at once"
    );
    assert_eq!((done[0].tag, done[0].completed), (99, 0));
    done.clear();
    for k in 0..4 {
        s.submit_live(0, req(Op::Write, k * 8), k);
    }
    // Let the writes complete (from DRAM), then flush before their programs end.
    let mut t = 0;
    while done.len() < 4 {
        t += 1_000 * PS_PER_NS;
        s.advance_to(t).unwrap();
        s.take_live_completions(&mut done);
    }
    s.flush_live(0, 100);
    s.take_live_completions(&mut done);
    assert_eq!(
        done.len(),
        4,
        "the programs (tPROG 100 us) have not finished"
    );
    drain(&mut s, &mut done);
    let f = done
        .iter()
        .find(|c| c.tag == 100)
        .expect("the flush completes");
    assert_eq!(f.arrival, t);
    let last_write = done[..4].iter().map(|c| c.completed).max().unwrap();
    assert!(f.completed > last_write + 50_000 * PS_PER_NS, "{f:?}");
    let out = s.finish_live();
    assert_eq!(out.flash.page_programs, 4);
}

/// MQSim's write-back policy keeps a page's rewrites within its window in DRAM with no program
/// under way; a flush writes them back, and completes once they are programmed.
#[test]
fn a_live_flush_writes_back_rewrites_mqsims_policy_keeps_in_dram() {
    let mut cfg = lagoon_core::config::SsdConfig::load("perf-optimized").unwrap();
    cfg.cache.enabled = true;
    cfg.cache.write_policy = lagoon_core::config::WritePolicyKind::Mqsim;
    let mut s = Simulator::new(&cfg, Arch::Baseline, vec![flow(Replay::Live, vec![])], 1);
    s.start_live().unwrap();
    let mut done = Vec::new();
    // The first write of page 0 is programmed; once it is, the rewrite stays in DRAM.
    s.submit_live(0, req(Op::Write, 0), 0);
    drain(&mut s, &mut done);
    s.submit_live(0, req(Op::Write, 0), 1);
    drain(&mut s, &mut done);
    assert_eq!(done.len(), 2);
    s.flush_live(0, 7);
    s.take_live_completions(&mut done);
    assert_eq!(done.len(), 2, "the rewrite is not on flash yet");
    let t = s.now();
    drain(&mut s, &mut done);
    let f = done
        .iter()
        .find(|c| c.tag == 7)
        .expect("the flush completes");
    assert!(f.completed > t + 50_000 * PS_PER_NS, "{f:?}");
    let out = s.finish_live();
    assert_eq!(out.flash.page_programs, 2);
}

/// Trimmed pages are read without a flash read, and counted.
#[test]
fn a_read_of_trimmed_pages_needs_no_flash_read() {
    let cfg = lagoon_core::config::SsdConfig::load("perf-optimized").unwrap();
    let mut s = Simulator::new(&cfg, Arch::Baseline, vec![flow(Replay::Live, vec![])], 1);
    s.share_namespace();
    s.start_live().unwrap();
    // Pages 0-3 whole; the partial last page (4) is left mapped.
    assert_eq!(s.trim_live(0, 0, 4 * 4096 + 100), 4);
    s.submit_live(0, req(Op::Read, 0), 1);
    s.submit_live(0, req(Op::Read, 4), 2);
    let mut done = Vec::new();
    drain(&mut s, &mut done);
    assert_eq!(done.len(), 2);
    let lat = |tag| {
        done.iter()
            .find(|c| c.tag == tag)
            .map(|c| c.completed - c.arrival)
            .unwrap()
    };
    assert!(
        lat(1) < lat(2),
        "no tR for the trimmed page: {} vs {}",
        lat(1),
        lat(2)
    );
    let out = s.finish_live();
    // One user page read, beside the mapping (CMT) reads both needed.
    assert_eq!(out.flash.page_reads - out.flash.mapping_reads, 1);
    assert_eq!(out.ftl.trimmed_page_reads, 1);
    assert_eq!(out.ftl.trimmed_pages, 4);
}
