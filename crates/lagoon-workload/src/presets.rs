//! Workload presets: synthetic stand-ins for the workloads of the Venice paper
//! (ISCA 2023), §5 Table 2 (19 traces) and Table 3 (6 mixes).
//!
//! They are **not** the traces: each preset is a [`SyntheticSpec`] with the published
//! read %, average request size and average inter-arrival time, and nothing else of the
//! original (hence the `syn:` prefix: `syn:hm_0`, `syn:mix1`).
//!
//! # Choices where Table 2 is silent
//!
//! - **Arrivals** are `bursty:<Table 2 mean>/`[`PRESET_BURST`] (see the grammar in
//!   [`crate::synthetic`]): bursts of geometric length with mean B, back to back inside a
//!   burst, exponential gaps of mean B × mean between bursts; the mean inter-arrival time
//!   is exactly Table 2's and CV² = 2B − 1. B is measured on the one real MSR Cambridge
//!   trace we have (see [`PRESET_BURST`]).
//! - **Sizes** mix the two multiples of 4 KiB around Table 2's average, weighted so the
//!   mean is exactly the average (8.8 KB → 80 % 8 KiB + 20 % 12 KiB; 16 KB → always
//!   16 KiB). Table 2 gives only the mean; this is the narrowest distribution of whole
//!   4 KiB pages with that mean (a page of the performance-optimized SSD of Table 1, a
//!   quarter page of the cost-optimized one), so results do not hinge on an invented tail.
//! - **Addresses** are uniform over the flow's space, aligned to 4 KiB: Table 2 gives no
//!   locality, and uniform is the assumption that adds none.
//! - **count** defaults to [`PRESET_COUNT`] requests.
//! - **YCSB_B**: the text of Table 2 lost one number of this row ("YCSB_B 99 65.7"); 65.7
//!   is taken as the average size in KB (YCSB_D's is 62 KB) and the inter-arrival time is
//!   **missing in the source**. The preset uses [`YCSB_B_STAND_IN_US`] = 14 µs, YCSB_D's
//!   value (same YCSB suite, same 99 % reads); [`TracePreset::inter_arrival_us`] is `None`
//!   for it.
//!
//! # Mixes (Table 3)
//!
//! A mix is several concurrent flows, one per constituent, each its constituent's preset.
//! Table 3 gives one aggregate average inter-arrival time per mix, which is not the
//! superposition of the constituents' Table 2 rates (lower for mix1, mix4, mix5 and mix6,
//! higher for mix2 and mix3). Every constituent's mean inter-arrival is multiplied by one
//! common factor ([`MixPreset::scale_factor`]) so the aggregate rate (the sum of the flows'
//! rates) gives exactly Table 3's mean; read % and sizes stay those of Table 2. A mix's
//! `count` is the total over its flows (default [`PRESET_COUNT`] × flows), split in
//! proportion to the flows' rates so all flows span about the same time. Factors:
//!
//! | mix | constituents | superposed Table 2 mean µs | Table 3 µs | factor |
//! |---|---|---|---|---|
//! | mix1 | src2_1, proj_3 | 13.77 | 5.8 | 0.421 |
//! | mix2 | src2_1, proj_3, YCSB_D | 6.94 | 8.4 | 1.210 |
//! | mix3 | prxy_0, rsrch_0 | 84.15 | 93 | 1.105 |
//! | mix4 | prxy_0, rsrch_0, mds_0 | 64.04 | 56 | 0.874 |
//! | mix5 | prxy_0, src2_1 | 41.44 | 5 | 0.121 |
//! | mix6 | prxy_0, src2_1, usr_0 | 29.12 | 3 | 0.103 |
//!
//! [`expand_workload`] turns `syn:mix1[,key=value,...]` into the flows' specs.
//!
//! # MSR stand-ins outside Venice Table 2 (`syn:hm_1`, `syn:prn_0`, `syn:proj_0`)
//!
//! MQSimNet's Table II runs three MSR Cambridge volumes that Venice Table 2 does not
//! characterize. Their presets ([`msr_stand_ins`]) are built the same way as Table 2's
//! (bursty arrivals with [`PRESET_BURST`], the narrowest 4 KiB size mix with the mean,
//! uniform aligned addresses), from numbers that are **not** from a primary table:
//!
//! - **hm_1 and proj_0, read % and mean request size**: no per-volume table of these
//!   volumes was reachable while they were built (Narayanan et al., FAST '08, tabulates
//!   servers, not volumes; the shared papers give none). The values are approximate figures
//!   of the week-long SNIA IOTTA traces as secondary SSD papers tabulate them, recalled, not
//!   checked against a source: treat them as unverified. They agree with the only statement in
//!   reach, the Decoupled SSD paper's §6.4 on Fig. 15b (`shared/papers/decoupled-ssd-isca2023.md`):
//!   hm_1 is read-intensive with "some fraction of write operations".
//! - **prn_0**: 10.8 % reads and 22.2 KB mean as Wu et al., IEEE TPDS 28(10) 2017, Table 4
//!   gives them (cited; the table could not be reached from this machine to check), "write
//!   intensive with a large I/O size" as the dSSD paper's §6.4 says; its mean gap carries
//!   Venice's compression of MSR time over from hm_0 (58 us x 3,993,300 / 5,585,886 I/Os over
//!   the same week, same table) = 41.5 us.
//! - **hm_1 and proj_0, inter-arrival time**: [`MSR_STAND_IN_INTER_ARRIVAL_US`], the median
//!   of Venice Table 2's ten MSR rows. Venice's means (19-268 µs) are far shorter than the
//!   recorded gaps of MSR volumes (the one MSR excerpt in `../shared/traces` has a mean gap of
//!   24.3 ms, [`PRESET_BURST`]) and Venice does not say how it obtained them, so a volume's
//!   recorded rate would not be comparable with the other stand-ins; the median is the
//!   typical MSR volume as Venice characterizes them.

/// Mean burst length B of the presets' `bursty` arrivals.
///
/// Measured on the real MSR Cambridge excerpt `../shared/traces/msr-cut-105.trace`
/// (10,000 requests, read with this crate's `msr-ms` reader): the squared coefficient of
/// variation of its 9,999 inter-arrival times is CV² = 11.43 (population variance / mean²;
/// mean gap 24.3 ms), so B = (CV² + 1) / 2 = 6.22, rounded to 6.2 (CV² = 11.4).
pub const PRESET_BURST: f64 = 6.2;

/// Default number of requests of a preset (and per flow, on average, of a mix).
pub const PRESET_COUNT: u64 = 100_000;

/// Stand-in mean inter-arrival time of YCSB_B (µs), whose value is missing in the text of
/// Table 2: YCSB_D's 14 µs (same YCSB suite, same 99 % reads).
pub const YCSB_B_STAND_IN_US: f64 = 14.0;

/// One workload of Venice Table 2, with its published numbers.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TracePreset {
    /// As in Table 2 (`hm_0`, `YCSB_B`, `ssd-00`, ...); the preset is `syn:<name>`.
    pub name: &'static str,
    /// Trace collection, as grouped in Table 2 (`MSR Cambridge`, `YCSB`, ...).
    pub source: &'static str,
    /// Read %, Table 2.
    pub read_pct: f64,
    /// Average request size, KB (1 KB = 1,024 bytes), Table 2.
    pub avg_size_kb: f64,
    /// Average inter-request arrival time, µs, Table 2; `None` where the source lost it
    /// (YCSB_B; the preset then uses [`YCSB_B_STAND_IN_US`]).
    pub inter_arrival_us: Option<f64>,
}

/// One mix of Venice Table 3, with its published numbers.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MixPreset {
    /// `mix1` ... `mix6`; the preset is `syn:<name>`.
    pub name: &'static str,
    /// Names of the constituent [`TracePreset`]s, Table 3.
    pub constituents: &'static [&'static str],
    /// Table 3's description.
    pub description: &'static str,
    /// Aggregate average inter-request arrival time, µs, Table 3.
    pub inter_arrival_us: f64,
}

const fn t(
    name: &'static str,
    source: &'static str,
    read_pct: f64,
    avg_size_kb: f64,
    inter_arrival_us: Option<f64>,
) -> TracePreset {
    TracePreset {
        name,
        source,
        read_pct,
        avg_size_kb,
        inter_arrival_us,
    }
}

const MSR: &str = "MSR Cambridge";

/// Venice Table 2, in the paper's order.
static TRACE_PRESETS: [TracePreset; 19] = [
    t("hm_0", MSR, 36.0, 8.8, Some(58.0)),
    t("mds_0", MSR, 12.0, 9.6, Some(268.0)),
    t("proj_3", MSR, 95.0, 9.6, Some(19.0)),
    t("prxy_0", MSR, 3.0, 7.2, Some(242.0)),
    t("rsrch_0", MSR, 9.0, 9.6, Some(129.0)),
    t("src1_0", MSR, 56.0, 43.2, Some(49.0)),
    t("src2_1", MSR, 98.0, 59.2, Some(50.0)),
    t("usr_0", MSR, 40.0, 22.8, Some(98.0)),
    t("wdev_0", MSR, 20.0, 9.2, Some(162.0)),
    t("web_1", MSR, 54.0, 29.6, Some(67.0)),
    // The text of Table 2 reads "YCSB_B 99 65.7": the inter-arrival time is missing in
    // the source (65.7 is the size: YCSB_D's is 62 KB). Stand-in: YCSB_B_STAND_IN_US.
    t("YCSB_B", "YCSB", 99.0, 65.7, None),
    t("YCSB_D", "YCSB", 99.0, 62.0, Some(14.0)),
    t("jenkins", "Slacker", 94.0, 33.4, Some(615.0)),
    t("postgres", "Slacker", 82.0, 13.3, Some(382.0)),
    t("LUN0", "SYSTOR '17", 76.0, 20.4, Some(218.0)),
    t("LUN2", "SYSTOR '17", 73.0, 16.0, Some(320.0)),
    t("LUN3", "SYSTOR '17", 7.0, 7.7, Some(3127.0)),
    t("ssd-00", "YCSB RocksDB", 91.0, 90.0, Some(5.0)),
    t("ssd-10", "YCSB RocksDB", 99.0, 11.5, Some(2.0)),
];

/// Mean inter-arrival time of the MSR stand-ins outside Venice Table 2 (µs): the median of
/// Table 2's ten MSR Cambridge rows (19, 49, 50, 58, 67 | 98, 129, 162, 242, 268 µs), since
/// no comparable value is published for them (module docs).
pub const MSR_STAND_IN_INTER_ARRIVAL_US: f64 = 82.5;

/// MSR Cambridge volumes MQSimNet Table II runs that Venice Table 2 does not characterize.
/// Read % and size: approximate, unverified (module docs, "MSR stand-ins outside Venice
/// Table 2"); inter-arrival: [`MSR_STAND_IN_INTER_ARRIVAL_US`].
static MSR_STAND_INS: [TracePreset; 3] = [
    // hm_1 (hardware monitoring, volume 1): read-mostly (dSSD §6.4: read-intensive with
    // some writes); ~95 % reads, ~15.2 KB mean (recalled SNIA statistics, unverified).
    t(
        "hm_1",
        MSR_STAND_IN,
        95.0,
        15.2,
        Some(MSR_STAND_IN_INTER_ARRIVAL_US),
    ),
    // prn_0 (print server, volume 0; the dSSD paper's Fig. 11a): 10.8 % reads (89.2 % writes)
    // and 22.2 KB mean from Wu et al., IEEE TPDS 28(10) 2017, Table 4, as cited (the table
    // was not reachable from this machine to check); mean gap 41.5 us = hm_0's Table 2 58 us
    // x hm_0's / prn_0's I/O count over the same week (3,993,300 / 5,585,886, same table):
    // Venice's compression of MSR time carried over.
    t("prn_0", MSR_STAND_IN, 10.8, 22.2, Some(41.5)),
    // proj_0 (project directories, volume 0): write-mostly, large writes; ~12 % reads,
    // ~38.0 KB mean (recalled SNIA statistics, unverified; no statement in the shared papers).
    t(
        "proj_0",
        MSR_STAND_IN,
        12.0,
        38.0,
        Some(MSR_STAND_IN_INTER_ARRIVAL_US),
    ),
];

const MSR_STAND_IN: &str = "MSR Cambridge (stand-in outside Venice Table 2)";

/// Venice Table 3.
static MIX_PRESETS: [MixPreset; 6] = [
    MixPreset {
        name: "mix1",
        constituents: &["src2_1", "proj_3"],
        description: "Both workloads are read-intensive",
        inter_arrival_us: 5.8,
    },
    MixPreset {
        name: "mix2",
        constituents: &["src2_1", "proj_3", "YCSB_D"],
        description: "All three workloads are read-intensive",
        inter_arrival_us: 8.4,
    },
    MixPreset {
        name: "mix3",
        constituents: &["prxy_0", "rsrch_0"],
        description: "Both workloads are write-intensive",
        inter_arrival_us: 93.0,
    },
    MixPreset {
        name: "mix4",
        constituents: &["prxy_0", "rsrch_0", "mds_0"],
        description: "All three workloads are write-intensive",
        inter_arrival_us: 56.0,
    },
    MixPreset {
        name: "mix5",
        constituents: &["prxy_0", "src2_1"],
        description: "prxy_0 is write-intensive and src2_1 is read-intensive",
        inter_arrival_us: 5.0,
    },
    MixPreset {
        name: "mix6",
        constituents: &["prxy_0", "src2_1", "usr_0"],
        description: "prxy_0 is write-intensive, src2_1 is read-intensive and usr_0 has 60% writes and 40% reads",
        inter_arrival_us: 3.0,
    },
];

static PRESET_NAMES: [&str; 25] = [
    "hm_0", "mds_0", "proj_3", "prxy_0", "rsrch_0", "src1_0", "src2_1", "usr_0", "wdev_0", "web_1",
    "YCSB_B", "YCSB_D", "jenkins", "postgres", "LUN0", "LUN2", "LUN3", "ssd-00", "ssd-10", "mix1",
    "mix2", "mix3", "mix4", "mix5", "mix6",
];

/// Every preset name, Table 2's 19 workloads then Table 3's 6 mixes, in the paper's order
/// (use them as `syn:<name>`); the MSR stand-ins outside Table 2 are [`msr_stand_ins`].
pub fn preset_names() -> &'static [&'static str] {
    &PRESET_NAMES
}

/// Table 2's workloads, in the paper's order.
pub fn trace_presets() -> &'static [TracePreset] {
    &TRACE_PRESETS
}

/// Table 3's mixes, in the paper's order.
pub fn mix_presets() -> &'static [MixPreset] {
    &MIX_PRESETS
}

/// The MSR stand-ins outside Venice Table 2 (`hm_1`, `prn_0`, `proj_0`; module docs).
pub fn msr_stand_ins() -> &'static [TracePreset] {
    &MSR_STAND_INS
}

/// Every single-flow preset name: Table 2's, then the MSR stand-ins outside it.
pub fn trace_preset_names() -> impl Iterator<Item = &'static str> {
    TRACE_PRESETS.iter().chain(&MSR_STAND_INS).map(|p| p.name)
}

/// The Table 2 workload or MSR stand-in called `name` (ASCII case-insensitive).
pub fn trace_preset(name: &str) -> Option<&'static TracePreset> {
    TRACE_PRESETS
        .iter()
        .chain(&MSR_STAND_INS)
        .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
}

/// The Table 3 mix called `name` (ASCII case-insensitive).
pub fn mix_preset(name: &str) -> Option<&'static MixPreset> {
    MIX_PRESETS
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(name.trim()))
}

/// `ns` as microseconds, exactly (`58us`, `21.063us`).
pub(crate) fn fmt_us(ns: u64) -> String {
    if ns % 1000 == 0 {
        format!("{}us", ns / 1000)
    } else {
        let frac = format!("{:03}", ns % 1000);
        format!("{}.{}us", ns / 1000, frac.trim_end_matches('0'))
    }
}

impl TracePreset {
    /// The mean inter-arrival time the preset generates, µs: Table 2's, or
    /// [`YCSB_B_STAND_IN_US`] where Table 2 lost it.
    pub fn mean_inter_arrival_us(&self) -> f64 {
        self.inter_arrival_us.unwrap_or(YCSB_B_STAND_IN_US)
    }

    /// The size distribution: the two multiples of 4 KiB around the average, weighted (in
    /// thousandths) so the mean is exactly `avg_size_kb`; one fixed size when the average
    /// is itself a multiple of 4 KiB. E.g. 8.8 → `choice:8k@800/12k@200`.
    pub fn size_spec(&self) -> String {
        // in tenths of KB: Table 2 has one decimal
        let x10 = (self.avg_size_kb * 10.0).round() as u64;
        let lo10 = x10 / 40 * 40;
        if lo10 == x10 {
            return format!("{}k", x10 / 10);
        }
        debug_assert!(lo10 > 0, "averages below 4 KB need another granule");
        let hi_weight = (x10 - lo10) * 25; // (x − lo) / 4 KB, in thousandths
        format!(
            "choice:{}k@{}/{}k@{hi_weight}",
            lo10 / 10,
            1000 - hi_weight,
            lo10 / 10 + 4
        )
    }

    /// The preset's keys, every one spelled out (what `syn:<name>` stands for), e.g.
    /// `read=36,size=choice:8k@800/12k@200,addr=uniform,align=4k,arrival=bursty:58us/6.2,count=100000`.
    pub fn spec_keys(&self) -> String {
        let mean_ns = (self.mean_inter_arrival_us() * 1e3).round() as u64;
        format!(
            "read={},size={},addr=uniform,align=4k,arrival=bursty:{}/{PRESET_BURST},count={PRESET_COUNT}",
            self.read_pct,
            self.size_spec(),
            fmt_us(mean_ns)
        )
    }
}

impl MixPreset {
    /// The constituents' Table 2 entries.
    pub fn constituent_presets(&self) -> impl Iterator<Item = &'static TracePreset> + 'static {
        self.constituents
            .iter()
            .map(|n| trace_preset(n).expect("mix constituents are Table 2 names (tested)"))
    }

    /// Mean inter-arrival time of the superposition of the constituents at their Table 2
    /// rates, µs: 1 / Σ (1 / mean_i).
    pub fn superposed_inter_arrival_us(&self) -> f64 {
        1.0 / self
            .constituent_presets()
            .map(|p| 1.0 / p.mean_inter_arrival_us())
            .sum::<f64>()
    }

    /// The factor applied to every constituent's Table 2 mean inter-arrival time so the
    /// aggregate mean is Table 3's: Table 3 mean / superposed mean.
    pub fn scale_factor(&self) -> f64 {
        self.inter_arrival_us / self.superposed_inter_arrival_us()
    }

    /// Each constituent with the mean inter-arrival time (µs) it has in the mix
    /// (Table 2's × [`scale_factor`](Self::scale_factor)).
    pub fn scaled_constituents(
        &self,
    ) -> impl Iterator<Item = (&'static TracePreset, f64)> + 'static {
        let f = self.scale_factor();
        self.constituent_presets()
            .map(move |p| (p, p.mean_inter_arrival_us() * f))
    }

    /// Default total number of requests: [`PRESET_COUNT`] per flow.
    pub fn default_count(&self) -> u64 {
        PRESET_COUNT * self.constituents.len() as u64
    }

    /// Splits `total` requests among the flows in proportion to their rates (largest
    /// remainder, ties to the first flow), so every flow spans about the same time.
    pub fn split_count(&self, total: u64) -> Vec<u64> {
        let rates: Vec<f64> = self
            .constituent_presets()
            .map(|p| 1.0 / p.mean_inter_arrival_us())
            .collect();
        let sum: f64 = rates.iter().sum();
        let exact: Vec<f64> = rates.iter().map(|r| total as f64 * r / sum).collect();
        let mut counts: Vec<u64> = exact.iter().map(|e| e.floor() as u64).collect();
        let mut left = total.saturating_sub(counts.iter().sum());
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by(|&a, &b| {
            let (fa, fb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
            fb.total_cmp(&fa).then(a.cmp(&b))
        });
        for i in order.into_iter().cycle() {
            if left == 0 {
                break;
            }
            counts[i] += 1;
            left -= 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interarrival_cv2;
    use crate::synthetic::{AddrPattern, Arrival, SizeDist};
    use crate::{expand_workload, SyntheticSpec};
    use crate::{Op, SyntheticGenerator, TraceStats};

    const GIB: u64 = 1 << 30;
    const CAP: u64 = 64 * GIB;

    fn gen(spec: &str, cap: u64, seed: u64) -> SyntheticGenerator {
        SyntheticGenerator::new(&SyntheticSpec::parse(spec).unwrap(), cap, seed).unwrap()
    }

    fn rel(measured: f64, published: f64) -> f64 {
        (measured - published).abs() / published
    }

    /// Venice Table 2 as printed (copied independently of the preset table):
    /// name, read %, avg size KB, avg inter-arrival µs (None: lost in the source).
    const TABLE2: [(&str, f64, f64, Option<f64>); 19] = [
        ("hm_0", 36.0, 8.8, Some(58.0)),
        ("mds_0", 12.0, 9.6, Some(268.0)),
        ("proj_3", 95.0, 9.6, Some(19.0)),
        ("prxy_0", 3.0, 7.2, Some(242.0)),
        ("rsrch_0", 9.0, 9.6, Some(129.0)),
        ("src1_0", 56.0, 43.2, Some(49.0)),
        ("src2_1", 98.0, 59.2, Some(50.0)),
        ("usr_0", 40.0, 22.8, Some(98.0)),
        ("wdev_0", 20.0, 9.2, Some(162.0)),
        ("web_1", 54.0, 29.6, Some(67.0)),
        ("YCSB_B", 99.0, 65.7, None),
        ("YCSB_D", 99.0, 62.0, Some(14.0)),
        ("jenkins", 94.0, 33.4, Some(615.0)),
        ("postgres", 82.0, 13.3, Some(382.0)),
        ("LUN0", 76.0, 20.4, Some(218.0)),
        ("LUN2", 73.0, 16.0, Some(320.0)),
        ("LUN3", 7.0, 7.7, Some(3127.0)),
        ("ssd-00", 91.0, 90.0, Some(5.0)),
        ("ssd-10", 99.0, 11.5, Some(2.0)),
    ];

    /// Venice Table 3: name, constituents, avg inter-arrival µs.
    const TABLE3: [(&str, &[&str], f64); 6] = [
        ("mix1", &["src2_1", "proj_3"], 5.8),
        ("mix2", &["src2_1", "proj_3", "YCSB_D"], 8.4),
        ("mix3", &["prxy_0", "rsrch_0"], 93.0),
        ("mix4", &["prxy_0", "rsrch_0", "mds_0"], 56.0),
        ("mix5", &["prxy_0", "src2_1"], 5.0),
        ("mix6", &["prxy_0", "src2_1", "usr_0"], 3.0),
    ];

    #[test]
    fn tables_match_the_paper() {
        assert_eq!(trace_presets().len(), TABLE2.len());
        for (p, (name, read, size, ia)) in trace_presets().iter().zip(TABLE2) {
            assert_eq!(
                (p.name, p.read_pct, p.avg_size_kb, p.inter_arrival_us),
                (name, read, size, ia)
            );
            assert!(!p.source.is_empty());
        }
        assert_eq!(mix_presets().len(), TABLE3.len());
        for (m, (name, constituents, ia)) in mix_presets().iter().zip(TABLE3) {
            assert_eq!(
                (m.name, m.constituents, m.inter_arrival_us),
                (name, constituents, ia)
            );
            assert_eq!(m.constituent_presets().count(), constituents.len());
        }
        // the name list is exactly Table 2, Table 3, then the stand-ins outside Table 2, and
        // every name resolves
        let names: Vec<&str> = TABLE2
            .iter()
            .map(|r| r.0)
            .chain(TABLE3.iter().map(|r| r.0))
            .collect();
        assert_eq!(preset_names(), names.as_slice());
        for n in preset_names() {
            assert!(trace_preset(n).is_some() != mix_preset(n).is_some(), "{n}");
            assert!(trace_preset(&n.to_uppercase()).is_some() || mix_preset(n).is_some());
        }
    }

    /// The MSR stand-ins outside Table 2: hm_1's and proj_0's inter-arrival is the median of
    /// Table 2's MSR rows, prn_0's hm_0's scaled by I/O counts; each generates its read %,
    /// mean size and mean gap (within 5 %).
    #[test]
    fn msr_stand_ins_outside_table2() {
        let mut msr: Vec<f64> = trace_presets()
            .iter()
            .filter(|p| p.source == MSR)
            .map(|p| p.mean_inter_arrival_us())
            .collect();
        msr.sort_by(f64::total_cmp);
        assert_eq!(msr.len(), 10);
        assert_eq!((msr[4] + msr[5]) / 2.0, MSR_STAND_IN_INTER_ARRIVAL_US);
        let names: Vec<&str> = msr_stand_ins().iter().map(|p| p.name).collect();
        assert_eq!(names, ["hm_1", "prn_0", "proj_0"]);
        for (i, p) in msr_stand_ins().iter().enumerate() {
            assert!(trace_preset(p.name).is_some() && !preset_names().contains(&p.name));
            let reqs: Vec<_> = gen(&format!("syn:{}", p.name), CAP, 2000 + i as u64).collect();
            let s = TraceStats::from_requests(reqs.iter().copied());
            assert!((s.read_pct - p.read_pct).abs() <= (0.05 * p.read_pct).max(1.0));
            assert!(rel(s.avg_size_kb, p.avg_size_kb) <= 0.05, "{}", p.name);
            assert!(rel(s.avg_interarrival_us, p.mean_inter_arrival_us()) <= 0.05);
        }
        assert_eq!(trace_preset("prn_0").unwrap().mean_inter_arrival_us(), 41.5);
        for n in ["hm_1", "proj_0"] {
            assert_eq!(
                trace_preset(n).unwrap().mean_inter_arrival_us(),
                MSR_STAND_IN_INTER_ARRIVAL_US
            );
        }
    }

    #[test]
    fn ycsb_b_inter_arrival_is_a_flagged_stand_in() {
        let b = trace_preset("YCSB_B").unwrap();
        assert_eq!(b.inter_arrival_us, None);
        assert_eq!(b.mean_inter_arrival_us(), YCSB_B_STAND_IN_US);
        let d = trace_preset("YCSB_D").unwrap();
        assert_eq!(d.inter_arrival_us, Some(YCSB_B_STAND_IN_US));
        assert_eq!(
            b.spec().arrival,
            Arrival::Bursty {
                mean_ns: 14_000,
                burst: PRESET_BURST
            }
        );
    }

    #[test]
    fn preset_specs_are_exact() {
        let hm = trace_preset("hm_0").unwrap();
        assert_eq!(
            hm.spec_keys(),
            "read=36,size=choice:8k@800/12k@200,addr=uniform,align=4k,arrival=bursty:58us/6.2,count=100000"
        );
        assert_eq!(trace_preset("LUN2").unwrap().size_spec(), "16k");
        assert_eq!(
            trace_preset("YCSB_B").unwrap().size_spec(),
            "choice:64k@575/68k@425"
        );
        assert_eq!(
            trace_preset("LUN3").unwrap().size_spec(),
            "choice:4k@75/8k@925"
        );
        for p in trace_presets() {
            let spec = p.spec();
            assert_eq!(spec.preset, Some(p.name));
            assert_eq!(spec.read_pct, p.read_pct);
            assert_eq!(spec.addr, AddrPattern::Uniform);
            assert_eq!(
                (spec.align, spec.count, spec.span),
                (4096, PRESET_COUNT, None)
            );
            // the size distribution's mean is the published average (to rounding)
            let mean = match &spec.size {
                SizeDist::Fixed(s) => f64::from(*s),
                SizeDist::Choice(c) => {
                    let w: f64 = c.iter().map(|(_, w)| w).sum();
                    c.iter().map(|(s, x)| f64::from(*s) * x).sum::<f64>() / w
                }
                SizeDist::Uniform { .. } | SizeDist::Hist(_) => unreachable!(),
            };
            assert!((mean / 1024.0 - p.avg_size_kb).abs() < 1e-9, "{}", p.name);
            match spec.size {
                SizeDist::Fixed(s) => assert_eq!(s % 4096, 0),
                SizeDist::Choice(c) => {
                    assert_eq!(c.len(), 2);
                    assert_eq!(c[1].0 - c[0].0, 4096);
                    assert!(c.iter().all(|(s, _)| s % 4096 == 0 && *s > 0));
                }
                SizeDist::Uniform { .. } | SizeDist::Hist(_) => unreachable!(),
            }
            let Arrival::Bursty { mean_ns, burst } = spec.arrival else {
                panic!("{}: not bursty", p.name)
            };
            assert_eq!(mean_ns as f64, p.mean_inter_arrival_us() * 1e3);
            assert_eq!(burst, PRESET_BURST);
        }
    }

    /// Every preset, 100k requests: read %, average size and average inter-arrival within
    /// 5 % of Table 2 (relative). For read % the tolerance is 5 % of the published value
    /// but at least 1 percentage point, which only matters for the small ones (prxy_0 3 %,
    /// LUN3 7 %, rsrch_0 9 %: ±1 point).
    #[test]
    fn every_preset_matches_table2() {
        for (i, p) in trace_presets().iter().enumerate() {
            let g = gen(&format!("syn:{}", p.name), CAP, 1000 + i as u64);
            let align = g.spec().align;
            let reqs: Vec<_> = g.collect();
            assert_eq!(reqs.len() as u64, PRESET_COUNT);
            for r in &reqs {
                assert_eq!(r.offset_bytes % align, 0);
                assert!(r.offset_bytes + u64::from(r.size_bytes) <= CAP);
                assert_eq!(r.size_bytes % 512, 0);
            }
            let s = TraceStats::from_requests(reqs.iter().copied());
            let read_tol = (0.05 * p.read_pct).max(1.0);
            assert!(
                (s.read_pct - p.read_pct).abs() <= read_tol,
                "{}: read {} vs {}",
                p.name,
                s.read_pct,
                p.read_pct
            );
            assert!(
                rel(s.avg_size_kb, p.avg_size_kb) <= 0.05,
                "{}: size {} vs {}",
                p.name,
                s.avg_size_kb,
                p.avg_size_kb
            );
            let ia = p.mean_inter_arrival_us();
            assert!(
                rel(s.avg_interarrival_us, ia) <= 0.05,
                "{}: inter-arrival {} vs {ia}",
                p.name,
                s.avg_interarrival_us
            );
            // and the arrivals are bursty: CV² near 2B − 1 = 11.4
            let cv2 = interarrival_cv2(reqs.iter().copied()).unwrap();
            assert!(
                (cv2 - (2.0 * PRESET_BURST - 1.0)).abs() < 1.5,
                "{}: {cv2}",
                p.name
            );
        }
    }

    /// Generates every flow of a mix (seeds as a caller would give them) and returns the
    /// flows' requests.
    fn mix_flows(spec: &str, seed: u64) -> Vec<Vec<crate::IoRequest>> {
        let flows = expand_workload(spec).unwrap();
        flows
            .iter()
            .enumerate()
            .map(|(i, f)| gen(f, CAP, seed.wrapping_add(i as u64 * 0x9e37_79b9)).collect())
            .collect()
    }

    /// Aggregate average inter-arrival of concurrent flows that all start at 0:
    /// (last − first arrival of the merged stream) / (requests − 1).
    fn aggregate_us(flows: &[Vec<crate::IoRequest>]) -> f64 {
        let n: usize = flows.iter().map(Vec::len).sum();
        let last = flows
            .iter()
            .filter_map(|f| f.last())
            .map(|r| r.arrival_ns)
            .max()
            .unwrap();
        last as f64 / (n - 1) as f64 / 1e3
    }

    #[test]
    fn mixes_match_table3() {
        for (i, m) in mix_presets().iter().enumerate() {
            // the scaling is exact on paper
            let agg_rate: f64 = m.scaled_constituents().map(|(_, ia)| 1.0 / ia).sum();
            assert!(
                rel(1.0 / agg_rate, m.inter_arrival_us) < 1e-12,
                "{}",
                m.name
            );
            let specs = expand_workload(&format!("syn:{}", m.name)).unwrap();
            assert_eq!(specs.len(), m.constituents.len(), "{}", m.name);
            let flows = mix_flows(&format!("syn:{}", m.name), 77 + i as u64);
            let total: usize = flows.iter().map(Vec::len).sum();
            assert_eq!(total as u64, m.default_count());
            let agg = aggregate_us(&flows);
            assert!(
                rel(agg, m.inter_arrival_us) <= 0.05,
                "{}: aggregate inter-arrival {agg} vs {}",
                m.name,
                m.inter_arrival_us
            );
            // every flow keeps its constituent's read % and size
            for ((p, ia), reqs) in m.scaled_constituents().zip(&flows) {
                let s = TraceStats::from_requests(reqs.iter().copied());
                assert!(
                    (s.read_pct - p.read_pct).abs() <= (0.05 * p.read_pct).max(1.0),
                    "{} {}: read {}",
                    m.name,
                    p.name,
                    s.read_pct
                );
                assert!(rel(s.avg_size_kb, p.avg_size_kb) <= 0.05, "{}", p.name);
                assert!(
                    rel(s.avg_interarrival_us, ia) <= 0.05,
                    "{} {}: {} vs {ia}",
                    m.name,
                    p.name,
                    s.avg_interarrival_us
                );
            }
        }
        // the documented factors
        let factors: Vec<String> = mix_presets()
            .iter()
            .map(|m| format!("{:.3}", m.scale_factor()))
            .collect();
        assert_eq!(
            factors,
            ["0.421", "1.210", "1.105", "0.874", "0.121", "0.103"]
        );
    }

    #[test]
    fn expand_mix_specs_and_overrides() {
        let m = mix_preset("mix1").unwrap();
        assert_eq!(
            expand_workload("syn:mix1").unwrap(),
            [
                "syn:src2_1,arrival=bursty:21.063us/6.2,count=55072",
                "syn:proj_3,arrival=bursty:8.004us/6.2,count=144928"
            ]
        );
        assert_eq!(m.split_count(200_000), [55_072, 144_928]);
        assert_eq!(m.split_count(1), [0, 1]);
        assert_eq!(
            mix_preset("mix6")
                .unwrap()
                .split_count(10)
                .iter()
                .sum::<u64>(),
            10
        );
        // overrides: count is the total, other keys go to every flow and win
        let flows = expand_workload(" syn:MIX2, count=1000, arrival=qd:8, read=50 ").unwrap();
        assert_eq!(flows.len(), 3);
        let specs: Vec<SyntheticSpec> = flows
            .iter()
            .map(|f| SyntheticSpec::parse(f).unwrap())
            .collect();
        assert_eq!(specs.iter().map(|s| s.count).sum::<u64>(), 1000);
        assert_eq!(
            specs.iter().map(|s| s.preset.unwrap()).collect::<Vec<_>>(),
            ["src2_1", "proj_3", "YCSB_D"]
        );
        for s in &specs {
            assert_eq!(s.closed_loop_depth(), Some(8));
            assert_eq!(s.read_pct, 50.0);
        }
        assert_eq!(specs[0].size, trace_preset("src2_1").unwrap().spec().size);
        // anything else comes back unchanged
        for w in [
            "../shared/traces/msr-cut-105.trace",
            "syn:hm_0,count=5",
            "syn:read=100",
            "syn:",
            "syn:nonsense",
        ] {
            assert_eq!(expand_workload(w).unwrap(), [w]);
        }
        // errors name the key
        let err = |w: &str| expand_workload(w).unwrap_err().to_string();
        assert_eq!(
            err("syn:mix3,count=lots"),
            "synthetic spec: bad value `lots` for `count`: expected a whole number of requests (the total over the mix's flows)"
        );
        // Issue 43: a flow of no request is refused (a spec's count is at least 1).
        let e = expand_workload("syn:mix1,count=1").unwrap_err().to_string();
        assert!(
            e.starts_with("synthetic spec: bad value `1` for `count`: the mix's")
                && e.contains("give at least"),
            "{e}"
        );
        assert!(err("syn:mix3,reads=5").contains("unknown key `reads`"));
        assert!(err("syn:mix3,size=7").contains("for `size`"));
        assert!(err("syn:mix3,read=1,read=2").contains("given more than once"));
        assert!(err("syn:mix3,read").contains("`read` is not of the form key=value"));
    }

    #[test]
    fn preset_overrides_win() {
        let base = SyntheticSpec::parse("syn:hm_0").unwrap();
        let s = SyntheticSpec::parse("syn:hm_0,count=20000").unwrap();
        assert_eq!(s.count, 20_000);
        assert_eq!(
            SyntheticSpec {
                count: PRESET_COUNT,
                ..s.clone()
            },
            base
        );
        assert_eq!(gen("syn:hm_0,count=20000", CAP, 1).count(), 20_000);
        let qd = SyntheticSpec::parse("syn:hm_0,arrival=qd:32").unwrap();
        assert_eq!(qd.closed_loop_depth(), Some(32));
        assert_eq!((qd.read_pct, &qd.size), (36.0, &base.size));
        let s = SyntheticSpec::parse("syn:ssd-00,size=4k,read=0,span=1g").unwrap();
        assert_eq!(
            (s.size.clone(), s.read_pct, s.span),
            (SizeDist::Fixed(4096), 0.0, Some(GIB))
        );
        // the canonical form keeps the name and round-trips
        assert_eq!(
            base.to_string(),
            "syn:hm_0,read=36,size=choice:8k@800/12k@200,addr=uniform,align=4k,arrival=bursty:58us/6.2,count=100000"
        );
        assert_eq!(SyntheticSpec::parse(&s.to_string()).unwrap(), s);
        // names are case-insensitive, canonicalised
        assert_eq!(
            SyntheticSpec::parse("syn:ycsb_b").unwrap().preset,
            Some("YCSB_B")
        );
        // a key twice among the user's keys is still an error; once over the preset is not
        assert_eq!(
            SyntheticSpec::parse("syn:hm_0,read=1,read=2")
                .unwrap_err()
                .to_string(),
            "synthetic spec: bad value `2` for `read`: the key is given more than once"
        );
    }

    #[test]
    fn unknown_names_and_mixes_are_clear_errors() {
        let e = SyntheticSpec::parse("syn:hm_9").unwrap_err().to_string();
        assert!(
            e.starts_with(
                "synthetic spec: unknown workload preset `hm_9` (expected one of: hm_0, mds_0, "
            ),
            "{e}"
        );
        assert!(
            e.contains("ssd-10, hm_1, prn_0, proj_0, mix1, mix2, mix3, mix4, mix5, mix6;"),
            "{e}"
        );
        assert_eq!(
            SyntheticSpec::parse("syn:mix5,count=3").unwrap_err().to_string(),
            "synthetic spec `syn:mix5,count=3`: `mix5` is a mix of 2 concurrent flows (prxy_0, src2_1), not one flow: expand it into one spec per flow with `expand_workload`"
        );
        // a preset name only comes first
        assert!(SyntheticSpec::parse("syn:read=5,hm_0")
            .unwrap_err()
            .to_string()
            .contains("`hm_0` is not of the form key=value"));
        // bad overrides name their key
        assert_eq!(
            SyntheticSpec::parse("syn:hm_0,arrival=bursty:58us/0.5")
                .unwrap_err()
                .to_string(),
            "synthetic spec: bad value `bursty:58us/0.5` for `arrival`: the mean burst length `0.5` must be a number from 1 to 1000000 (e.g. bursty:58us/4)"
        );
    }

    #[test]
    fn presets_are_deterministic_per_seed() {
        for w in ["syn:hm_0,count=5000", "syn:ssd-10,count=5000"] {
            let a: Vec<_> = gen(w, CAP, 9).collect();
            let b: Vec<_> = gen(w, CAP, 9).collect();
            let c: Vec<_> = gen(w, CAP, 10).collect();
            assert_eq!(a, b);
            assert_ne!(a, c);
        }
        assert_eq!(
            mix_flows("syn:mix4,count=9000", 3),
            mix_flows("syn:mix4,count=9000", 3)
        );
        assert!(
            gen("syn:prxy_0", CAP, 1)
                .filter(|r| r.op == Op::Read)
                .count()
                > 0
        );
    }

    /// How PRESET_BURST was chosen; skipped when the shared traces are not there.
    #[test]
    fn preset_burst_from_msr_trace() {
        let path = crate::trace::tests::shared("msr-cut-105.trace");
        if !path.exists() {
            eprintln!("skipped: {} not found", path.display());
            return;
        }
        let reader = crate::open_trace(&path, None, false).unwrap();
        let cv2 = interarrival_cv2(reader.map(Result::unwrap)).unwrap();
        assert!((cv2 - 11.43).abs() < 0.005, "{cv2}");
        let b = (cv2 + 1.0) / 2.0;
        assert!((b - PRESET_BURST).abs() < 0.05, "{b}");
    }
}
