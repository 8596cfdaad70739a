//! `lagoon trace ...`: inspect, convert, cut and fit block traces (issue 16).
//!
//! Every subcommand reads a trace the same way ([`TraceInput`]): the format detected
//! (refused when ambiguous or implausible) unless `--format` names it, compressed files
//! decompressed as they stream, `--lenient` to skip malformed lines, `--device` (alias
//! `--volume`) to keep one device's requests of a trace that interleaves many.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use lagoon_workload::fit::{fit, Profile};
use lagoon_workload::stats::StatsAccumulator;
use lagoon_workload::synthetic::parse_duration;
use lagoon_workload::trace::{detect, Compression, Detection, TraceWriter};
use lagoon_workload::{
    open_trace, IoRequest, Op, SyntheticGenerator, SyntheticSpec, TraceFormat, TraceReader,
    WorkloadError,
};

use crate::{help, write_out};
use lagoon_lab::run::check_not_empty;

#[derive(Args, Clone)]
pub struct TraceInput {
    /// Trace format; detected if omitted (an error names the candidates when two fit or
    /// none is plausible).
    #[arg(long, value_parser = help::format())]
    format: Option<TraceFormat>,
    /// Skip and count malformed lines instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// Only this device's requests: the device, disk, volume (Tencent), device_id
    /// (Alibaba) or ASU (UMass) column of the format.
    #[arg(long, visible_alias = "volume")]
    device: Option<u32>,
}

#[derive(Subcommand)]
pub enum TraceCommand {
    /// Requests, read %, average size, inter-arrival time and span of a trace, with the
    /// format detected, the units assumed and the first request beside its line.
    Stats {
        file: PathBuf,
        #[command(flatten)]
        input: TraceInput,
        /// Write JSON to a file, or `-` for standard output.
        #[arg(long)]
        json: Option<String>,
        /// Also count the requests of each device (the 20 busiest are listed).
        #[arg(long)]
        devices: bool,
    },
    /// Rewrite a trace in another format (times rounded to the target's unit are counted);
    /// FILE may be a `syn:` spec, to write a synthetic workload as a trace.
    Convert {
        file: PathBuf,
        /// The format to write.
        #[arg(long = "to", value_parser = help::format())]
        to: TraceFormat,
        /// Output file (default: standard output).
        #[arg(long, short)]
        output: Option<PathBuf>,
        #[command(flatten)]
        input: TraceInput,
    },
    /// A time window (`--from`/`--to`, from the first request, e.g. 10s, 250ms) or the
    /// first `--count` requests of a trace, as its own request lines.
    Cut {
        file: PathBuf,
        /// Start of the window after the first request's arrival (inclusive), with a unit.
        #[arg(long)]
        from: Option<String>,
        /// End of the window after the first request's arrival (exclusive), with a unit.
        #[arg(long)]
        to: Option<String>,
        /// Keep the first N requests.
        #[arg(long, conflicts_with_all = ["from", "to"])]
        count: Option<u64>,
        /// Output file (default: standard output).
        #[arg(long, short)]
        output: Option<PathBuf>,
        #[command(flatten)]
        input: TraceInput,
    },
    /// Print a `syn:` spec with the trace's read share, size histogram, inter-arrival
    /// histogram with its bursts, and hot/cold locality: `--workload "$(lagoon trace fit X)"`.
    Fit {
        file: PathBuf,
        #[command(flatten)]
        input: TraceInput,
        /// Also generate the fitted workload and print its statistics beside the trace's
        /// (on standard error).
        #[arg(long)]
        check: bool,
    },
}

pub fn trace(cmd: TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Stats {
            file,
            input,
            json,
            devices,
        } => stats(&file, &input, json, devices),
        TraceCommand::Convert {
            file,
            to,
            output,
            input,
        } => convert(&file, &input, to, output.as_deref()),
        TraceCommand::Cut {
            file,
            from,
            to,
            count,
            output,
            input,
        } => cut(&file, &input, from, to, count, output.as_deref()),
        TraceCommand::Fit { file, input, check } => fit_cmd(&file, &input, check),
    }
}

/// The format (detected unless given) and the detection, if there was one.
fn format_of(file: &Path, input: &TraceInput) -> Result<(TraceFormat, Option<Detection>)> {
    check_not_empty(file)?;
    match input.format {
        Some(f) => Ok((f, None)),
        None => {
            let d = detect(file)?;
            Ok((d.format, Some(d)))
        }
    }
}

fn open(file: &Path, input: &TraceInput, format: TraceFormat) -> Result<TraceReader> {
    Ok(open_trace(file, Some(format), input.lenient)?.only_device(input.device))
}

fn describe(r: &IoRequest) -> String {
    format!(
        "arrival {} ns, device {}, offset {} B, size {} B, {}",
        r.arrival_ns,
        r.device,
        r.offset_bytes,
        r.size_bytes,
        if r.op == Op::Read { "read" } else { "write" }
    )
}

fn stats(file: &Path, input: &TraceInput, json: Option<String>, devices: bool) -> Result<()> {
    let (format, detection) = format_of(file, input)?;
    let mut reader = open(file, input, format)?;
    let mut acc = StatsAccumulator::new();
    let mut per_device: HashMap<u32, u64> = HashMap::new();
    let mut first = None;
    while let Some(r) = reader.next() {
        let r = r?;
        if first.is_none() {
            first = Some((reader.line_number(), reader.raw_line().to_string(), r));
        }
        if devices && per_device.len() < 1 << 20 {
            *per_device.entry(r.device).or_default() += 1;
        }
        acc.push(&r);
    }
    let stats = acc.finish();
    let (line, raw, req) = first.expect("a reader yields a request or an error");
    let compression = match &detection {
        Some(d) => d.compression,
        None => lagoon_workload::trace::open_input(file)?.1,
    };
    let how = match &detection {
        Some(d) => format!("detected: {}", d.reason()),
        None => "given with --format".to_string(),
    };
    let mut busiest: Vec<(u32, u64)> = per_device.into_iter().collect();
    busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if let Some(target) = &json {
        let mut v = serde_json::to_value(&stats)?;
        v["file"] = file.display().to_string().into();
        v["format"] = format.to_string().into();
        v["format_source"] = how.clone().into();
        v["units"] = format.units().into();
        v["compression"] = compression.name().into();
        v["first_request"] = serde_json::json!({
            "line": line,
            "text": raw,
            "arrival_ns": req.arrival_ns,
            "device": req.device,
            "offset_bytes": req.offset_bytes,
            "size_bytes": req.size_bytes,
            "op": req.op,
        });
        if let Some(d) = input.device {
            v["device"] = d.into();
            v["other_device_requests"] = reader.other_device_requests().into();
        }
        if devices {
            v["devices"] = busiest
                .iter()
                .map(|(d, n)| serde_json::json!({"device": d, "requests": n}))
                .collect();
        }
        write_out(target, &serde_json::to_string_pretty(&v)?)?;
    }
    if json.as_deref() != Some("-") {
        lagoon_lab::outln!("{} ({})", file.display(), format)?;
        lagoon_lab::outln!("format                {format} ({how})")?;
        lagoon_lab::outln!("units                 {}", format.units())?;
        if compression != Compression::None {
            lagoon_lab::outln!("compression           {}", compression.name())?;
        }
        lagoon_lab::outln!("first request         line {line}: {raw}")?;
        lagoon_lab::outln!("                      read as {}", describe(&req))?;
        if let Some(d) = input.device {
            lagoon_lab::outln!(
                "device                {d} ({} requests of other devices passed over)",
                reader.other_device_requests()
            )?;
        }
        lagoon_lab::outln!("{stats}")?;
        if devices {
            lagoon_lab::outln!(
                "devices               {} (requests of the busiest 20 below)",
                busiest.len()
            )?;
            for (d, n) in busiest.iter().take(20) {
                lagoon_lab::outln!("  device {d:<12} {n}")?;
            }
        }
    }
    Ok(())
}

/// Lines written between two looks at Ctrl-C.
const INTERRUPT_EVERY: u64 = 4096;

fn check_interrupt(n: u64) -> Result<()> {
    if n.is_multiple_of(INTERRUPT_EVERY) && lagoon_lab::interrupt::requested() {
        bail!("interrupted by Ctrl-C");
    }
    Ok(())
}

fn convert(file: &Path, input: &TraceInput, to: TraceFormat, output: Option<&Path>) -> Result<()> {
    let stdout = Path::new("-");
    let output = output.unwrap_or(stdout);
    lagoon_lab::out::check(output, "--output")?;
    let spec = file.to_str().filter(|s| SyntheticSpec::is_synthetic(s));
    let (format, reader): (
        String,
        Box<dyn Iterator<Item = Result<IoRequest, WorkloadError>>>,
    ) = match spec {
        Some(s) => {
            let spec = SyntheticSpec::parse(s)?;
            // addresses within the spec's span, or 1 TiB
            let g = SyntheticGenerator::new(&spec, spec.span.unwrap_or(1 << 40), 1)?;
            ("synthetic".into(), Box::new(g.map(Ok)))
        }
        None => {
            let (format, _) = format_of(file, input)?;
            (format.to_string(), Box::new(open(file, input, format)?))
        }
    };
    let mut out = lagoon_lab::out::Output::create(output, "--output")?;
    let name = out.name().to_string();
    let (n, rounded) = {
        let mut w = TraceWriter::new(&mut out, to);
        for (i, r) in reader.enumerate() {
            check_interrupt(i as u64)?;
            w.write(&r?)
                .with_context(|| format!("{}: writing {name}", file.display()))?;
        }
        (w.written(), w.rounded_times())
    };
    out.commit()?;
    eprintln!(
        "{n} requests from {} ({format}) written to {name} as {to}{}",
        file.display(),
        if rounded > 0 {
            format!("; {rounded} arrival times rounded to {to}'s time unit")
        } else {
            String::new()
        }
    );
    Ok(())
}

fn cut(
    file: &Path,
    input: &TraceInput,
    from: Option<String>,
    to: Option<String>,
    count: Option<u64>,
    output: Option<&Path>,
) -> Result<()> {
    let dur = |flag: &str, v: &Option<String>| -> Result<Option<u64>> {
        v.as_deref()
            .map(|s| parse_duration(s).map_err(|e| anyhow::anyhow!("--{flag}: {e}")))
            .transpose()
    };
    let (from, to) = (dur("from", &from)?, dur("to", &to)?);
    if from.is_none() && to.is_none() && count.is_none() {
        bail!("give --from and/or --to (times after the first request, e.g. 10s), or --count N");
    }
    if let (Some(f), Some(t)) = (from, to) {
        if t <= f {
            bail!("--to must be after --from");
        }
    }
    if count == Some(0) {
        bail!("--count must be at least 1");
    }
    let output = output.unwrap_or(Path::new("-"));
    lagoon_lab::out::check(output, "--output")?;
    let (format, _) = format_of(file, input)?;
    let mut reader = open(file, input, format)?;
    let mut out = lagoon_lab::out::Output::create(output, "--output")?;
    let name = out.name().to_string();
    let kept = {
        let mut start = None;
        let mut kept = 0u64;
        let mut seen = 0u64;
        while let Some(r) = reader.next() {
            let r = r?;
            seen += 1;
            check_interrupt(seen)?;
            let t0 = *start.get_or_insert(r.arrival_ns);
            let rel = r.arrival_ns.saturating_sub(t0);
            if count.is_some_and(|c| kept >= c) || to.is_some_and(|t| rel >= t) {
                break; // a trace is in time order: nothing later is in the window
            }
            if from.is_some_and(|f| rel < f) {
                continue;
            }
            writeln!(out, "{}", reader.raw_line())
                .with_context(|| format!("cannot write {name}"))?;
            kept += 1;
        }
        kept
    };
    if kept == 0 {
        bail!("{}: no request in the window", file.display());
    }
    out.commit()?;
    eprintln!(
        "{kept} requests of {} ({format}) written to {name}",
        file.display()
    );
    Ok(())
}

fn fit_cmd(file: &Path, input: &TraceInput, check: bool) -> Result<()> {
    let (format, _) = format_of(file, input)?;
    let spec =
        fit(|| open_trace(file, Some(format), input.lenient).map(|r| r.only_device(input.device)))?;
    lagoon_lab::outln!("{spec}")?;
    if check {
        let trace = Profile::of_trace(|| {
            open_trace(file, Some(format), input.lenient).map(|r| r.only_device(input.device))
        })?;
        let capacity = 1u64 << 50;
        let span = SyntheticGenerator::new(&spec, capacity, 1)?.span_bytes();
        let synth = Profile::of_requests(
            || SyntheticGenerator::new(&spec, capacity, 1).expect("checked above"),
            span,
        );
        eprint!("{}", trace.compare(&synth));
    }
    Ok(())
}
