//! What every report must satisfy whatever its input (SPEC §7: "reported statistics are
//! self-consistent"): percentiles within [min, max] and in order, the mean within them,
//! counts that add up, fractions and utilizations within [0, 1], rates that follow from the
//! counts and the simulated time. `lagoon run` checks every report it writes; the fuzzers
//! (bench/fuzz_cli.py and the tests) check every case. A failure names the field.

use lagoon_core::report::Report;
use lagoon_core::stats::LatencySummary;

/// Room for the rounding of sums of floating-point fractions.
const EPS: f64 = 1e-9;

fn latency(errs: &mut Vec<String>, name: &str, l: &LatencySummary) {
    if l.count == 0 {
        return;
    }
    let p = [l.min, l.p50, l.p90, l.p99, l.p999, l.p9999, l.max];
    if p.windows(2).any(|w| w[0] > w[1]) {
        errs.push(format!(
            "{name}: min <= p50 <= p90 <= p99 <= p99.9 <= p99.99 <= max fails: {p:?}"
        ));
    }
    if !(l.mean.is_finite() && l.mean >= l.min as f64 - EPS && l.mean <= l.max as f64 + EPS) {
        errs.push(format!(
            "{name}: mean {} outside [min {}, max {}]",
            l.mean, l.min, l.max
        ));
    }
}

fn fraction(errs: &mut Vec<String>, name: &str, v: f64) {
    if !(v.is_finite() && (-EPS..=1.0 + EPS).contains(&v)) {
        errs.push(format!("{name}: {v} is not within [0, 1]"));
    }
}

fn non_negative(errs: &mut Vec<String>, name: &str, v: f64) {
    if !(v.is_finite() && v >= 0.0) {
        errs.push(format!("{name}: {v} is not a non-negative number"));
    }
}

/// Every invariant `r` breaks, one line each (empty: none).
pub fn check(r: &Report) -> Vec<String> {
    let mut e = Vec::new();
    if r.reads + r.writes != r.requests {
        e.push(format!(
            "reads {} + writes {} != requests {}",
            r.reads, r.writes, r.requests
        ));
    }
    for (name, l, n) in [
        ("latency_ns", &r.latency_ns, r.requests),
        ("read_latency_ns", &r.read_latency_ns, r.reads),
        ("write_latency_ns", &r.write_latency_ns, r.writes),
        ("device_latency_ns", &r.device_latency_ns, r.requests),
        ("device_read_latency_ns", &r.device_read_latency_ns, r.reads),
        (
            "device_write_latency_ns",
            &r.device_write_latency_ns,
            r.writes,
        ),
    ] {
        latency(&mut e, name, l);
        if l.count != n {
            e.push(format!(
                "{name}.count {} != {n} requests of its class",
                l.count
            ));
        }
    }
    // A request's device time is part of its end-to-end time.
    if r.requests > 0 && r.device_latency_ns.mean > r.latency_ns.mean * (1.0 + 1e-9) + EPS {
        e.push(format!(
            "device_latency_ns.mean {} > latency_ns.mean {}",
            r.device_latency_ns.mean, r.latency_ns.mean
        ));
    }
    let flows: u64 = r.flows.iter().map(|f| f.requests).sum();
    if flows != r.requests {
        e.push(format!(
            "flows' requests {flows} != requests {}",
            r.requests
        ));
    }
    for (i, f) in r.flows.iter().enumerate() {
        if f.reads + f.writes != f.requests {
            e.push(format!("flows[{i}]: reads + writes != requests"));
        }
        latency(&mut e, &format!("flows[{i}].latency_ns"), &f.latency_ns);
        latency(
            &mut e,
            &format!("flows[{i}].read_latency_ns"),
            &f.read_latency_ns,
        );
        latency(
            &mut e,
            &format!("flows[{i}].write_latency_ns"),
            &f.write_latency_ns,
        );
        fraction(
            &mut e,
            &format!("flows[{i}].path_conflict_fraction"),
            f.path_conflict_fraction,
        );
        non_negative(&mut e, &format!("flows[{i}].iops"), f.iops);
    }
    non_negative(&mut e, "sim_time_ns", r.sim_time_ns);
    non_negative(&mut e, "iops", r.iops);
    non_negative(&mut e, "bandwidth_mb_s", r.bandwidth_mb_s);
    if r.sim_time_ns > 0.0 {
        let want = r.requests as f64 / (r.sim_time_ns * 1e-9);
        if (r.iops - want).abs() > 1e-6 * want.max(1.0) {
            e.push(format!(
                "iops {} != requests / simulated time {want}",
                r.iops
            ));
        }
    }
    if r.utilization_span_ns + EPS < r.sim_time_ns {
        e.push(format!(
            "utilization_span_ns {} < sim_time_ns {}",
            r.utilization_span_ns, r.sim_time_ns
        ));
    }
    fraction(&mut e, "path_conflict_fraction", r.path_conflict_fraction);
    fraction(&mut e, "die_utilization", r.die_utilization);
    fraction(&mut e, "die_array_utilization", r.die_array_utilization);
    if r.die_array_utilization > r.die_utilization + 1e-9 {
        e.push(format!(
            "die_array_utilization {} > die_utilization {}",
            r.die_array_utilization, r.die_utilization
        ));
    }
    non_negative(&mut e, "mean_busy_chips", r.mean_busy_chips);
    let ic = &r.interconnect;
    fraction(
        &mut e,
        "interconnect.mean_channel_utilization",
        ic.mean_channel_utilization,
    );
    for (i, &u) in ic.channel_utilization.iter().enumerate() {
        fraction(&mut e, &format!("interconnect.channel_utilization[{i}]"), u);
    }
    if ic.conflicted_transfers > ic.transfers {
        e.push(format!(
            "interconnect: {} conflicted transfers of {}",
            ic.conflicted_transfers, ic.transfers
        ));
    }
    if let Some(v) = &r.venice {
        fraction(&mut e, "venice.first_try_fraction", v.first_try_fraction);
        fraction(
            &mut e,
            "venice.first_try_transfer_fraction",
            v.first_try_transfer_fraction,
        );
        fraction(&mut e, "venice.nonminimal_fraction", v.nonminimal_fraction);
    }
    if let Some(c) = &r.controller {
        fraction(
            &mut e,
            "controller.system_bus_utilization",
            c.system_bus_utilization,
        );
        fraction(&mut e, "controller.dram_utilization", c.dram_utilization);
        fraction(
            &mut e,
            "controller.fc_link_utilization",
            c.fc_link_utilization,
        );
        for (i, &u) in c.ecc_utilization.iter().enumerate() {
            fraction(&mut e, &format!("controller.ecc_utilization[{i}]"), u);
        }
    }
    if r.write_amplification.is_nan() || r.write_amplification < 0.0 {
        e.push(format!(
            "write_amplification {} is not a non-negative number",
            r.write_amplification
        ));
    }
    if r.wear.min_erases as f64 > r.wear.mean_erases + EPS
        || r.wear.mean_erases > r.wear.max_erases as f64 + EPS
    {
        e.push(format!(
            "wear: min {} <= mean {} <= max {} fails",
            r.wear.min_erases, r.wear.mean_erases, r.wear.max_erases
        ));
    }
    if let Some(en) = &r.energy {
        non_negative(&mut e, "energy.total_mj", en.total_mj);
        non_negative(&mut e, "energy.average_power_mw", en.average_power_mw);
    }
    e
}

/// [`check`] as an error naming every broken invariant.
pub fn ensure(r: &Report) -> anyhow::Result<()> {
    let e = check(r);
    if e.is_empty() {
        Ok(())
    } else {
        Err(anyhow::anyhow!(
            "internal error: the report breaks {} invariant{} (please report it): {}",
            e.len(),
            if e.len() == 1 { "" } else { "s" },
            e.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lagoon_core::config::SsdConfig;
    use lagoon_core::interconnect::Arch;
    use lagoon_core::scenario::Scenario;

    fn report(arch: Arch, w: &str) -> Report {
        let mut cfg = SsdConfig::load("perf-optimized").unwrap();
        cfg.flash.blocks_per_plane = 64;
        Scenario::new("t", cfg, arch, vec![w.into()])
            .run(|_| {})
            .unwrap()
    }

    #[test]
    fn every_back_end_passes_and_a_broken_report_is_named() {
        for arch in Arch::ALL {
            let r = report(
                arch,
                "syn:read=70,size=8k,addr=uniform,arrival=qd:16,count=400",
            );
            assert_eq!(check(&r), Vec::<String>::new(), "{arch}");
        }
        let mut r = report(Arch::Baseline, "syn:read=50,size=4k,count=200");
        r.latency_ns.p99 = r.latency_ns.max + 1;
        r.die_utilization = 1.5;
        r.reads += 1;
        let e = check(&r);
        assert!(e.iter().any(|x| x.starts_with("latency_ns: min")), "{e:?}");
        assert!(e.iter().any(|x| x.starts_with("die_utilization")), "{e:?}");
        assert!(e.iter().any(|x| x.starts_with("reads")), "{e:?}");
        assert!(ensure(&r).unwrap_err().to_string().contains("invariants"));
    }
}
