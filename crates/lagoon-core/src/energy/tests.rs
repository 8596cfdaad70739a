use super::*;
use crate::config::presets;
use crate::scenario::Scenario;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300)
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        assert!(close(a, b), "{} = {a}, expected {b}", stringify!($a));
    }};
}

/// 1 ms of a perf-optimized drive (tR 3 us, tPROG 100 us, tBERS 1 ms; 25 mA at 3.3 V):
/// 1000 page reads, 100 page programs, 2 block erases.
fn activity() -> Activity {
    Activity {
        sim_time_ns: 1e6,
        page_reads: 1000,
        page_programs: 100,
        block_erases: 2,
        bus_busy_ns: 0.0,
        link_busy_ns: 0.0,
    }
}

#[test]
fn energy_of_a_hand_computed_run() {
    let cfg = presets::perf_optimized();
    // Per operation: 25 mA × 3.3 V = 82.5 mW.
    //   read    82.5 mW × 3 us    = 247.5 nJ
    //   program 82.5 mW × 100 us  = 8250 nJ
    //   erase   82.5 mW × 1 ms    = 82500 nJ
    // Flash: 1000 × 247.5 nJ = 0.2475 mJ; 100 × 8250 nJ = 0.825 mJ; 2 × 82500 nJ = 0.165 mJ;
    //   sum 1.2375 mJ.  Static: 5000 mW × 1 ms = 5 mJ.
    // Baseline, 8 buses half busy (4 ms of bus time): 10.8 mW × 4 ms = 0.0432 mJ;
    //   total 1.2375 + 0.0432 + 5 = 6.2807 mJ, 6280.7 mW on average.
    let a = Activity {
        bus_busy_ns: 4e6,
        ..activity()
    };
    let e = energy(&cfg, Arch::Baseline, &a);
    assert_close!(e.read_page_nj, 247.5);
    assert_close!(e.program_page_nj, 8250.0);
    assert_close!(e.erase_block_nj, 82500.0);
    assert_close!(e.flash_read_mj, 0.2475);
    assert_close!(e.flash_program_mj, 0.825);
    assert_close!(e.flash_erase_mj, 0.165);
    assert_close!(e.flash_mj, 1.2375);
    assert_close!(e.bus_mj, 0.0432);
    assert_eq!((e.link_mj, e.router_mj, e.routers), (0.0, 0.0, 0));
    assert_close!(e.static_mj, 5.0);
    assert_close!(e.total_mj, 6.2807);
    assert_close!(e.average_power_mw, 6280.7);
    assert_close!(e.interconnect_power_mw, 43.2);

    // Venice, 20 ms of link time over the mesh: 1.08 mW × 20 ms = 0.0216 mJ; 64 routers ×
    // 0.241 mW × 1 ms = 0.015424 mJ; total 1.2375 + 0.0216 + 0.015424 + 5 = 6.274524 mJ.
    let a = Activity {
        link_busy_ns: 2e7,
        ..activity()
    };
    let v = energy(&cfg, Arch::Venice, &a);
    assert_eq!(v.routers, 64);
    assert_eq!(v.bus_mj, 0.0);
    assert_close!(v.link_mj, 0.0216);
    assert_close!(v.router_mj, 0.015424);
    assert_close!(v.total_mj, 6.274524);
    assert_close!(v.average_power_mw, 6274.524);

    // NoSSD, same links, 64 routers × 1.0 mW × 1 ms = 0.064 mJ: total 6.3231 mJ.
    let n = energy(&cfg, Arch::Nossd, &a);
    assert_close!(n.router_mj, 0.064);
    assert_close!(n.total_mj, 6.3231);
}

#[test]
fn energy_constants_are_read_from_the_config() {
    // Cost-optimized tR 45 us: 82.5 mW × 45 us = 3712.5 nJ per page read.
    let cost = presets::cost_optimized();
    assert_close!(
        energy(&cost, Arch::Baseline, &activity()).read_page_nj,
        3712.5
    );
    // No static power, 10 mA at 1.8 V: 18 mW × 3 us = 54 nJ; 1000 reads = 0.054 mJ;
    // 100 programs × 18 mW × 100 us = 0.18 mJ; 2 erases × 18 mW × 1 ms = 0.036 mJ;
    // 10 ms of bus at 2 mW = 0.02 mJ: total 0.29 mJ, 290 mW over 1 ms.
    let cfg = SsdConfig::from_toml(
        "[energy]\nstatic_mw = 0.0\nflash_vcc_v = 1.8\nread_current_ma = 10.0\n\
         program_current_ma = 10.0\nerase_current_ma = 10.0\nbus_mw = 2.0\n",
        "t.toml",
    )
    .unwrap();
    let e = energy(
        &cfg,
        Arch::Pssd,
        &Activity {
            bus_busy_ns: 1e7,
            ..activity()
        },
    );
    assert_close!(e.total_mj, 0.29);
    assert_close!(e.average_power_mw, 290.0);
    // An empty run costs nothing and reports no power rather than dividing by zero.
    let z = energy(&cfg, Arch::Venice, &Activity::default());
    assert_eq!((z.total_mj, z.average_power_mw), (0.0, 0.0));
}

#[test]
fn area_reproduces_venice_footnote_7() {
    let cfg = presets::perf_optimized();
    let v = area(&cfg, Arch::Venice);
    assert_eq!((v.links, v.routers, v.buses), (112, 64, 0));
    // 1 − (112 × 0.04) / (8 × 1) = 1 − 4.48 / 8 = 0.44.
    assert_close!(v.link_area_channel_units, 4.48);
    assert_close!(v.baseline_area_channel_units, 8.0);
    assert_close!(v.interconnect_area_vs_baseline, 0.56);
    assert_close!(v.interconnect_area_change_vs_baseline, -0.44);
    // 64 routers × 8 mm² = 512 mm²; one router = 8 % of a 100 mm² flash chip.
    assert_eq!(v.router_area_mm2, Some(512.0));
    assert_close!(v.router_area_per_flash_chip.unwrap(), 0.08);
    let b = area(&cfg, Arch::Baseline);
    assert_eq!((b.buses, b.links, b.routers), (8, 0, 0));
    assert_close!(b.interconnect_area_vs_baseline, 1.0);
    assert_eq!(b.router_area_mm2, Some(0.0));
    assert_eq!(area(&cfg, Arch::Pnssd).buses, 16);
    assert_eq!(area(&cfg, Arch::Ideal).buses, 64);
    let n = area(&cfg, Arch::Nossd);
    assert_eq!((n.links, n.router_area_mm2), (112, None));
}

#[test]
fn area_scales_with_the_mesh() {
    assert_eq!(mesh_links(8, 8), 112);
    assert_eq!(mesh_links(4, 16), 4 * 15 + 3 * 16);
    assert_eq!(mesh_links(16, 4), 16 * 3 + 15 * 4);
    assert_eq!(mesh_links(1, 1), 0);
    assert_eq!(mesh_links(0, 8), 0);
    let mut cfg = presets::perf_optimized();
    let mut last = 0.0;
    for n in [2u32, 4, 8, 16, 32] {
        cfg.flash.channels = n;
        cfg.flash.chips_per_channel = n;
        let a = area(&cfg, Arch::Venice);
        assert_eq!(a.links, 2 * n * (n - 1));
        assert_eq!(a.routers, n * n);
        assert!(a.link_area_channel_units > last);
        last = a.link_area_channel_units;
        // Against the n baseline channels: 2 n (n − 1) × 0.04 / n = 0.08 (n − 1).
        assert_close!(a.interconnect_area_vs_baseline, 0.08 * (n - 1) as f64);
        assert_eq!(a.router_area_mm2, Some(8.0 * (n * n) as f64));
    }
    // Fig. 15's 4×16 over the same 64 chips: 108 links against 4 channels of 16 chips.
    cfg.flash.channels = 4;
    cfg.flash.chips_per_channel = 16;
    let a = area(&cfg, Arch::Venice);
    assert_eq!(a.links, 108);
    assert_close!(a.interconnect_area_vs_baseline, 108.0 * 0.04 / 4.0);
}

/// The tiny drive, small enough for a unit test.
fn small() -> SsdConfig {
    crate::testing::tiny()
}

fn run(cfg: &SsdConfig, arch: Arch, w: &str) -> serde_json::Value {
    let mut s = Scenario::new("small", cfg.clone(), arch, vec![w.to_string()]);
    s.seed = 3;
    let r = s.run(|_| {}).unwrap();
    serde_json::from_str(&r.deterministic_json()).unwrap()
}

fn num(v: &serde_json::Value, p: &str) -> f64 {
    v.pointer(p)
        .and_then(|x| x.as_f64())
        .unwrap_or_else(|| panic!("{p} missing"))
}

/// Energy recomputed from a JSON report's own counters, independently of [`energy`].
fn expected_mj(v: &serde_json::Value, cfg: &SsdConfig, link: bool, routers_mw: f64) -> f64 {
    let t_s = num(v, "/sim_time_ns") * 1e-9;
    let op = |ma: f64, ns: f64| ma * 3.3 * ns * 1e-9;
    let f = &cfg.flash;
    let flash = num(v, "/flash/page_reads") * op(25.0, f.read_ns)
        + num(v, "/flash/page_programs") * op(25.0, f.program_ns)
        + num(v, "/ftl/erases") * op(25.0, f.erase_ns);
    let busy_s: f64 = v["interconnect"]["channel_utilization"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_f64().unwrap() * t_s)
        .sum();
    let moving = if link { 1.08 } else { 10.8 } * busy_s;
    flash + moving + routers_mw * t_s + 5000.0 * t_s
}

#[test]
fn json_report_of_a_real_run_has_energy_and_area() {
    let cfg = small();
    // Enough writes that GC erases blocks, so every term of the energy is exercised.
    let w = "syn:read=30,size=choice:4k@70/16k@30,addr=uniform,arrival=qd:8,count=4000";
    let b = run(&cfg, Arch::Baseline, w);
    let v = run(&cfg, Arch::Venice, w);
    for r in [&b, &v] {
        let e = &r["energy"];
        for k in [
            "total_mj",
            "average_power_mw",
            "flash_read_mj",
            "flash_program_mj",
            "flash_erase_mj",
            "bus_mj",
            "link_mj",
            "router_mj",
            "static_mj",
        ] {
            assert!(e[k].as_f64().is_some(), "energy.{k} missing in {e}");
        }
        assert!(num(r, "/energy/total_mj") > 0.0);
        let t_s = num(r, "/sim_time_ns") * 1e-9;
        assert_close!(
            num(r, "/energy/average_power_mw") * t_s,
            num(r, "/energy/total_mj")
        );
        assert!(r["area"]["interconnect_area_vs_baseline"]
            .as_f64()
            .is_some());
    }
    // Each run's energy is what its own counters imply; Baseline moves data on buses,
    // Venice on links with four routers.
    let eb = num(&b, "/energy/total_mj");
    let ev = num(&v, "/energy/total_mj");
    let xb = expected_mj(&b, &cfg, false, 0.0);
    let xv = expected_mj(&v, &cfg, true, 4.0 * 0.241);
    assert!((eb - xb).abs() <= 1e-9 * xb, "baseline {eb} vs {xb}");
    assert!((ev - xv).abs() <= 1e-9 * xv, "venice {ev} vs {xv}");
    assert!(num(&b, "/ftl/erases") > 0.0 && num(&v, "/energy/flash_erase_mj") > 0.0);
    assert!(num(&b, "/energy/bus_mj") > 0.0 && num(&b, "/energy/link_mj") == 0.0);
    assert!(num(&v, "/energy/link_mj") > 0.0 && num(&v, "/energy/bus_mj") == 0.0);
    // Which design uses less energy follows from those inputs, not from the paper.
    assert_eq!(eb > ev, xb > xv);
    assert_eq!(b["area"]["links"], 0);
    assert_eq!(v["area"]["links"], 4);
}

#[test]
fn nossd_charges_only_mesh_links() {
    let cfg = small();
    let w = "syn:read=50,size=4k,addr=uniform,arrival=qd:8,count=300";
    let r = run(&cfg, Arch::Nossd, w);
    let t = num(&r, "/sim_time_ns");
    let util = r["interconnect"]["channel_utilization"].as_array().unwrap();
    // The layer reports its router-to-router link directions only (no injection or
    // ejection): a 2 x 2 mesh has 4 links, 8 directions, each charged while busy.
    assert_eq!(util.len(), 2 * 4);
    let mesh: f64 = util.iter().map(|u| u.as_f64().unwrap() * t).sum();
    let link = num(&r, "/energy/link_busy_ns");
    assert!(link > 0.0);
    assert!((link - mesh).abs() <= 1e-9 * mesh);
    assert_close!(num(&r, "/energy/router_mj"), 4.0 * 1.0 * t * 1e-9);
}
