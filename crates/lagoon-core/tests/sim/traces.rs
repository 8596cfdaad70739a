//! Every shared trace on both presets and both back ends, timed and closed loop: all
//! requests complete, and the path-conflict-free back end is never slower.

use super::common::trace;
use lagoon_core::config::SsdConfig;
use lagoon_core::host::Replay;
use lagoon_core::interconnect::Arch;
use lagoon_core::scenario::Scenario;

const ALL: [(&str, u64); 4] =
    [("tpcc-small.trace", 6_999), ("wsrch-small.trace", 24_783), ("msr-cut-105.trace", 10_000), ("fiu-cheetah-mail.trace", 9_998)];

#[test]
fn all_traces_both_presets_both_back_ends_both_replays() {
    for preset in ["perf-optimized", "cost-optimized"] {
        let cfg = SsdConfig::load(preset).unwrap();
        for (name, n) in ALL {
            for replay in [Replay::Timed { speedup: 1.0 }, Replay::Closed { depth: 32 }] {
                let mut time = Vec::new();
                for arch in [Arch::Baseline, Arch::Ideal] {
                    let mut s = Scenario::new(preset, cfg.clone(), arch, vec![trace(name)]);
                    s.replay = Some(replay);
                    let r = s.run(|_| {}).unwrap();
                    assert_eq!(r.requests, n, "{preset} {name} {replay} {arch}");
                    time.push((r.sim_time_ns, r.latency_ns.mean));
                }
                let (base, ideal) = (time[0], time[1]);
                assert!(ideal.0 <= base.0, "{preset} {name} {replay}: ideal took {} ns, baseline {} ns", ideal.0, base.0);
                assert!(ideal.1 <= base.1 * 1.0001, "{preset} {name} {replay}: ideal mean latency {} > baseline {}", ideal.1, base.1);
            }
        }
    }
}
