//! Help texts and value parsers built from the code's own lists (back ends, presets, host
//! schedulers, trace formats) and ranges (the configuration schema's), so `--help` and the
//! checks can never fall behind what the simulator accepts; and the command line's parser.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use lagoon_core::config::schema::{Range, Value};
use lagoon_core::config::{presets, SsdConfig};
use lagoon_core::host::piq::Scheme;
use lagoon_core::interconnect::Arch;
use lagoon_workload::TraceFormat;
use std::any::TypeId;

/// `--arch`: one of [`Arch::ALL`], each described in `--help`.
pub fn arch() -> impl TypedValueParser<Value = Arch> {
    PossibleValuesParser::new(
        Arch::CHOICES.map(|a| PossibleValue::new(a.name()).help(a.description())),
    )
    .map(|s| s.parse::<Arch>().expect("a listed back end"))
}

/// `--host-scheduler`: one of [`Scheme::ALL`].
pub fn scheduler() -> impl TypedValueParser<Value = Scheme> {
    PossibleValuesParser::new(
        Scheme::ALL.map(|s| PossibleValue::new(s.name()).help(s.description())),
    )
    .map(|s| s.parse::<Scheme>().expect("a listed scheduler"))
}

/// `--format`: one of [`TraceFormat::ALL`], with its line layout.
pub fn format() -> impl TypedValueParser<Value = TraceFormat> {
    PossibleValuesParser::new(
        TraceFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.description())),
    )
    .map(|s| s.parse::<TraceFormat>().expect("a listed format"))
}

/// `--ssd`: the presets by name, or a TOML file.
pub fn ssd() -> String {
    format!(
        "Preset ({}) or a TOML file (`lagoon config PRESET` prints one to start from)",
        presets::NAMES.join(", ")
    )
}

/// `lagoon config PRESET`.
pub fn preset() -> String {
    format!("Preset name: {}", presets::NAMES.join(", "))
}

/// A number flag within `range` (the schema's [`Range`] type): a value outside it is clap's
/// error naming the flag, before any work (`--utilization 0`, `--pe-mean -1`).
pub fn within(range: Range) -> impl TypedValueParser<Value = f64> {
    number(move |v| range.check(Value::Real(v)))
}

/// A number, then `check` on it; either error is clap's, naming the flag.
fn number(
    check: impl Fn(f64) -> Result<(), String> + Clone + Send + Sync + 'static,
) -> impl TypedValueParser<Value = f64> {
    clap::builder::StringValueParser::new().try_map(move |s| {
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("'{s}' is not a number"))?;
        check(v).map(|()| v)
    })
}

/// A number flag checked by `check` (a range the schema's [`Range`] cannot say, such as an
/// open interval); its error names the flag.
pub fn checked(check: fn(f64) -> Result<(), String>) -> impl TypedValueParser<Value = f64> {
    number(check)
}

/// A flag that sets the configuration key `key`: its range is the key's declared one (the
/// schema), so the flag and the file accept the same values; the error names both.
pub fn key(key: &'static str) -> impl TypedValueParser<Value = f64> {
    let range = SsdConfig::default()
        .keys()
        .into_iter()
        .find(|k| k.key == key)
        .unwrap_or_else(|| panic!("{key} is a numeric key of the schema"))
        .range;
    number(move |v| {
        range
            .check(Value::Real(v))
            .map_err(|e| format!("{key} {e}"))
    })
}

/// `c` with every flag that takes a number allowed a negative one: `--pe-mean -1` then
/// reaches the range check that names the flag, where clap alone said "unexpected argument
/// '-1'". Every entry point parses through it ([`parse`]).
pub fn with_negative_numbers(c: clap::Command) -> clap::Command {
    c.mut_args(|a| {
        let t = a.get_value_parser().type_id();
        let numeric = [
            TypeId::of::<f64>(),
            TypeId::of::<u64>(),
            TypeId::of::<u32>(),
            TypeId::of::<usize>(),
            TypeId::of::<i64>(),
        ]
        .iter()
        .any(|n| t == *n);
        a.allow_negative_numbers(numeric)
    })
    .mut_subcommands(with_negative_numbers)
}

/// Parse `argv` (program name first) as `P`'s command line, through [`with_negative_numbers`].
pub fn parse<P, I, T>(argv: I) -> Result<P, clap::Error>
where
    P: clap::Parser,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut c = with_negative_numbers(P::command());
    let m = c.try_get_matches_from_mut(argv)?;
    P::from_arg_matches(&m).map_err(|e| e.format(&mut c))
}
