//! `lagoon lifetime`: write a fresh drive to death in the functional lifetime mode
//! ([`lagoon_core::lifetime`]) and report bad superblocks against data written.

use anyhow::{bail, Context, Result};
use clap::Args;
use lagoon_core::config::schema::Range;
use lagoon_core::config::{SsdConfig, SuperblockMode, SuperblockWidth};
use lagoon_core::lifetime::{self, LifetimeReport, LifetimeSpec, Pattern};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct LifetimeArgs {
    /// Drive: a preset or TOML file; its `[wear]` section applies unless overridden below.
    #[arg(long, default_value = "dssd-superblock", help = lagoon_lab::help::ssd())]
    pub ssd: String,
    /// Superblock management: baseline (static) | recycled | reserv (Decoupled SSD §5).
    #[arg(long)]
    pub mode: Option<String>,
    /// Superblock made of one block per plane | die | channel.
    #[arg(long)]
    pub width: Option<String>,
    /// Mean P/E limit per block (`wear.pe_mean`).
    #[arg(long, value_parser = lagoon_lab::help::key("wear.pe_mean"))]
    pub pe_mean: Option<f64>,
    /// Standard deviation of the P/E limit (`wear.pe_sigma`).
    #[arg(long, value_parser = lagoon_lab::help::key("wear.pe_sigma"))]
    pub sigma: Option<f64>,
    /// SRT entries per flash controller (`wear.srt_entries`).
    #[arg(long)]
    pub srt_entries: Option<u32>,
    /// RESERV's reserved fraction of blocks (`wear.reserve_fraction`).
    #[arg(long, value_parser = lagoon_lab::help::key("wear.reserve_fraction"))]
    pub reserve: Option<f64>,
    /// Host write pattern: random | seq.
    #[arg(long, default_value = "random")]
    pub pattern: Pattern,
    /// Host write size, KiB (§6.4: 128 KB), a whole number of flash pages; at most 1 GiB.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..=MAX_REQUEST_KIB))]
    pub request_kib: u64,
    /// Logical space as a fraction of the superblocks the FTL sees (§6.4: 90 %), in (0, 1);
    /// the space must hold one whole request.
    #[arg(long, default_value_t = 0.9, value_parser = lagoon_lab::help::checked(UTILIZATION))]
    pub utilization: f64,
    /// Stop when this fraction of the superblocks is bad (default: until worn out), in (0, 1].
    #[arg(long, default_value_t = 1.0, value_parser = lagoon_lab::help::within(Range::above(0.0, 1.0)))]
    pub stop_bad_fraction: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the JSON report to a file, or `-` for standard output.
    #[arg(long)]
    pub json: Option<String>,
    /// Write bad superblocks against data written as CSV (`-` for standard output).
    #[arg(long)]
    pub curve: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The drive of `a.ssd` with the command line's `[wear]` overrides, validated.
pub fn drive(a: &LifetimeArgs) -> Result<SsdConfig> {
    let mut c = SsdConfig::load(&a.ssd)?;
    if let Some(m) = &a.mode {
        c.wear.superblock = mode(m)?;
    }
    if let Some(w) = &a.width {
        c.wear.superblock_width = match w.as_str() {
            "plane" => SuperblockWidth::Plane,
            "die" => SuperblockWidth::Die,
            "channel" => SuperblockWidth::Channel,
            _ => bail!("--width: unknown '{w}' (plane | die | channel)"),
        };
    }
    if let Some(v) = a.pe_mean {
        c.wear.pe_mean = v;
    }
    if let Some(v) = a.sigma {
        c.wear.pe_sigma = v;
    }
    if let Some(v) = a.srt_entries {
        c.wear.srt_entries = v;
    }
    if let Some(v) = a.reserve {
        c.wear.reserve_fraction = v;
    }
    c.validate()?;
    Ok(c)
}

pub fn mode(s: &str) -> Result<SuperblockMode> {
    SuperblockMode::ALL
        .into_iter()
        .find(|m| m.name() == s || (s == "static" && *m == SuperblockMode::Static))
        .with_context(|| format!("--mode: unknown '{s}' (baseline | recycled | reserv)"))
}

/// `--utilization`'s range: a fraction in (0, 1) (the FTL needs room beside the logical space).
const UTILIZATION: fn(f64) -> Result<(), String> = |u| {
    if u > 0.0 && u < 1.0 {
        Ok(())
    } else {
        Err("must be a fraction in (0, 1)".into())
    }
};

/// The largest `--request-kib`: 1 GiB.
pub const MAX_REQUEST_KIB: u64 = 1 << 20;

pub fn run(a: LifetimeArgs) -> Result<()> {
    let cfg = drive(&a)?;
    if let Some(j) = &a.json {
        lagoon_lab::out::check(std::path::Path::new(j), "--json")?;
    }
    if let Some(c) = &a.curve {
        lagoon_lab::out::check(c, "--curve")?;
    }
    let stdout_taken = a.json.as_deref() == Some("-")
        || a.curve.as_deref().is_some_and(lagoon_lab::out::is_stdout);
    if a.json.as_deref() == Some("-") && a.curve.as_deref().is_some_and(lagoon_lab::out::is_stdout)
    {
        bail!("--json and --curve both name standard output (-); give a file to one");
    }
    let request_bytes = a
        .request_kib
        .checked_mul(1024)
        .context("--request-kib: too large")?;
    let spec = LifetimeSpec {
        request_bytes,
        pattern: a.pattern,
        utilization: a.utilization,
        stop_bad_fraction: a.stop_bad_fraction,
        stop_srt_active: None,
        seed: a.seed,
    };
    let quiet = a.quiet || stdout_taken;
    let pb = lagoon_lab::progress::life_bar(quiet, cfg.wear.superblock.name());
    lagoon_lab::interrupt::finish_on_first(true);
    let cancel = lagoon_lab::interrupt::cancel();
    let (r, _) = lifetime::age_cancellable(&cfg, &spec, Some(&cancel), |done, total| {
        pb.set_length(total.max(done));
        pb.set_position(done);
    })
    // The one check that needs the drive's own FTL, named by its flag.
    .map_err(|e| match e.strip_prefix("utilization ") {
        Some(rest) => anyhow::anyhow!("--utilization {rest}"),
        None => anyhow::Error::msg(e),
    })?;
    pb.finish_and_clear();
    if let Some(t) = &a.json {
        crate::write_out(t, &serde_json::to_string_pretty(&r)?)?;
    }
    if let Some(p) = &a.curve {
        lagoon_lab::out::write(p, "--curve", curve_csv(&r).as_bytes())?;
    }
    if !stdout_taken {
        lagoon_lab::out!("{}", summary(&r))?;
    }
    if r.end == lifetime::LifetimeEnd::Interrupted {
        return Err(crate::Interrupted(format!(
            "interrupted: the report covers the {:.3} TB written before Ctrl-C",
            r.host_bytes_written as f64 / 1e12
        ))
        .into());
    }
    Ok(())
}

/// `bad_superblocks,host_tb,remaps` rows, one per retirement.
pub fn curve_csv(r: &LifetimeReport) -> String {
    let mut s = String::from("bad_superblocks,host_tb,remaps\n");
    for p in &r.bad_curve {
        let _ = writeln!(
            s,
            "{},{:.6},{}",
            p.bad_superblocks,
            p.host_bytes as f64 / 1e12,
            p.remaps
        );
    }
    s
}

pub fn summary(r: &LifetimeReport) -> String {
    let tb = |b: u64| b as f64 / 1e12;
    let mut s = format!(
        "lifetime  {} ({}), {} superblocks of {} blocks, P/E {} ± {}, {:?} {} KiB writes over {:.1} GB\n",
        r.drive,
        r.superblock_mode,
        r.superblocks,
        r.blocks_per_superblock,
        r.pe_mean,
        r.pe_sigma,
        r.pattern,
        r.request_bytes / 1024,
        r.logical_bytes as f64 / 1e9
    );
    let _ = writeln!(
        s,
        "end       {} after {:.3} TB written; first bad superblock at {}",
        r.end,
        tb(r.host_bytes_written),
        r.first_bad_superblock_bytes
            .map_or("none".into(), |b| format!("{:.3} TB", tb(b)))
    );
    let _ = writeln!(
        s,
        "bad       {} superblocks, {} blocks; {} remaps ({} onto another plane), SRT full {} x, RBT empty {} x",
        r.counters.bad_superblocks,
        r.bad_blocks,
        r.remaps,
        r.plane_conflict_remaps,
        r.srt_full_refusals,
        r.rbt_empty_refusals
    );
    let _ = writeln!(
        s,
        "wear      erases min {} / mean {:.1} / max {}; write amplification {:.3}",
        r.min_erases, r.mean_erases, r.max_erases, r.write_amplification
    );
    let _ = writeln!(
        s,
        "speed     {} page programs in {:.1} s: {:.1} M/s",
        r.page_programs,
        r.wall_s,
        r.page_programs_per_s / 1e6
    );
    s
}
