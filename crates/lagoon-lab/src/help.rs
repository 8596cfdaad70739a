//! Help texts and value parsers built from the code's own lists (back ends, presets, host
//! schedulers, trace formats), so `--help` can never fall behind what the simulator accepts.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use lagoon_core::config::presets;
use lagoon_core::host::piq::Scheme;
use lagoon_core::interconnect::Arch;
use lagoon_workload::TraceFormat;

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
