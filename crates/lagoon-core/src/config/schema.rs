//! The configuration's one validation schema: every numeric key's unit and valid range,
//! declared once per section right under its struct (as ramulator2 declares its parameters),
//! and the cross-section rules that no single key can check. Presets, TOML files, `--mesh`
//! and the Python API all go through [`super::SsdConfig::validate`], which runs both.
//!
//! Ranges are wide enough for every published drive and narrow enough that no product of
//! them overflows simulated time (`u64` picoseconds) or the 32-bit page and block indices,
//! and that the model's up-front state fits the memory budget below.

use super::{ConfigError, SsdConfig};

/// What a numeric key may hold.
#[derive(Clone, Copy, Debug)]
pub enum Range {
    /// An integer in `min..=max`.
    Int { min: u64, max: u64 },
    /// A finite real in `[min, max]`, or `(min, max]` when `open_min`.
    Real { min: f64, max: f64, open_min: bool },
}

impl Range {
    pub const fn int(min: u64, max: u64) -> Self {
        Range::Int { min, max }
    }
    /// A finite real in `[min, max]`.
    pub const fn real(min: f64, max: f64) -> Self {
        Range::Real {
            min,
            max,
            open_min: false,
        }
    }
    /// A finite real in `(min, max]`.
    pub const fn above(min: f64, max: f64) -> Self {
        Range::Real {
            min,
            max,
            open_min: true,
        }
    }

    /// `Err(reason)` when `v` is outside the range.
    pub fn check(&self, v: Value) -> Result<(), String> {
        match (*self, v) {
            (Range::Int { min, max }, Value::Int(x)) => {
                if x < min || x > max {
                    return Err(format!("must be an integer in {min}..={max}"));
                }
            }
            (Range::Real { min, max, open_min }, Value::Real(x)) => {
                let low_ok = if open_min { x > min } else { x >= min };
                if !(x.is_finite() && low_ok && x <= max) {
                    let lo = if open_min { "(" } else { "[" };
                    return Err(format!("must be a finite number in {lo}{min}, {max}]"));
                }
            }
            (r, v) => unreachable!("schema declares {r:?} for a {v:?} value"),
        }
        Ok(())
    }
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Range::Int { min, max } => write!(f, "{min}..={max}"),
            Range::Real { min, max, open_min } => {
                write!(f, "{}{min}, {max}]", if open_min { "(" } else { "[" })
            }
        }
    }
}

/// A key's current value, as the schema sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(u64),
    Real(f64),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(x) => write!(f, "{x}"),
            Value::Real(x) => write!(f, "{x}"),
        }
    }
}

/// One numeric key of a section `S`: its name inside the section, unit, range and reader.
pub struct Param<S> {
    pub name: &'static str,
    /// Unit as written in docs and errors ("ns", "MB/s", "bytes", "" for counts).
    pub unit: &'static str,
    pub range: Range,
    pub get: fn(&S) -> Value,
}

/// Declares an integer key of a section: `int!(field, "unit", min, max)`.
macro_rules! int {
    ($field:ident, $unit:expr, $min:expr, $max:expr) => {
        $crate::config::schema::Param {
            name: stringify!($field),
            unit: $unit,
            range: $crate::config::schema::Range::int($min, $max),
            get: |s| $crate::config::schema::Value::Int(s.$field as u64),
        }
    };
}

/// Declares a real key of a section: `real!(field, "unit", Range::real(min, max))`.
macro_rules! real {
    ($field:ident, $unit:expr, $range:expr) => {
        $crate::config::schema::Param {
            name: stringify!($field),
            unit: $unit,
            range: $range,
            get: |s| $crate::config::schema::Value::Real(s.$field),
        }
    };
}
pub(crate) use {int, real};

/// A section of the configuration: its TOML table name and its numeric keys.
pub trait Section: Sized + 'static {
    const NAME: &'static str;
    const PARAMS: &'static [Param<Self>];
}

/// Every numeric key of the whole configuration, with its full dotted name, unit, range and
/// current value: what validation walks, what `lagoon config --schema` prints, and what the
/// config fuzzer attacks.
pub struct KeyInfo {
    pub key: String,
    pub unit: &'static str,
    pub range: Range,
    pub value: Value,
}

fn section_keys<S: Section>(s: &S, out: &mut Vec<KeyInfo>) {
    for p in S::PARAMS {
        out.push(KeyInfo {
            key: format!("{}.{}", S::NAME, p.name),
            unit: p.unit,
            range: p.range,
            value: (p.get)(s),
        });
    }
}

impl SsdConfig {
    /// Every numeric key with its value, in declaration order.
    pub fn keys(&self) -> Vec<KeyInfo> {
        let mut out = Vec::new();
        section_keys(&self.host, &mut out);
        section_keys(&self.flash, &mut out);
        section_keys(&self.flash.onfi, &mut out);
        section_keys(&self.ftl, &mut out);
        if let super::MappingConfig::Demand {
            cmt_bytes,
            entry_bytes,
        } = self.ftl.mapping
        {
            for (name, unit, range, v) in [
                ("cmt_bytes", "bytes", CMT_BYTES, cmt_bytes),
                ("entry_bytes", "bytes", CMT_ENTRY_BYTES, entry_bytes as u64),
            ] {
                out.push(KeyInfo {
                    key: format!("ftl.mapping.{name}"),
                    unit,
                    range,
                    value: Value::Int(v),
                });
            }
        }
        section_keys(&self.cache, &mut out);
        section_keys(&self.precondition, &mut out);
        section_keys(&self.network, &mut out);
        section_keys(&self.energy, &mut out);
        section_keys(&self.controller, &mut out);
        section_keys(&self.fnoc, &mut out);
        section_keys(&self.wear, &mut out);
        out
    }
}

/// A key that takes one of a fixed set of words (`flash.multiplane = "same-offset"`), with its
/// current value and every word it accepts.
pub struct ChoiceInfo {
    pub key: String,
    pub value: String,
    pub choices: Vec<String>,
}

impl SsdConfig {
    /// Every key that takes one of a set of words, found from the configuration itself: each
    /// string-valued key is set to a word no type accepts, and the parser's refusal lists the
    /// words it would have taken (keys that take any text, such as `name`, are left out).
    /// What `lagoon config --keys` prints after the numeric keys; no list to keep in step.
    pub fn choice_keys(&self) -> Vec<ChoiceInfo> {
        let Ok(toml::Value::Table(root)) = toml::Value::try_from(self) else {
            return Vec::new();
        };
        let mut leaves = Vec::new();
        string_leaves(&root, &mut Vec::new(), &mut leaves);
        let mut out = Vec::new();
        for (path, value) in leaves {
            let mut t = root.clone();
            set_leaf(&mut t, &path, "\u{1}?");
            let Err(e) = toml::Value::Table(t).try_into::<SsdConfig>() else {
                continue; // any text goes
            };
            let choices = expected_words(&e.to_string());
            if !choices.is_empty() {
                out.push(ChoiceInfo {
                    key: path.join("."),
                    value,
                    choices,
                });
            }
        }
        out
    }
}

fn string_leaves(t: &toml::Table, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    for (k, v) in t {
        path.push(k.clone());
        match v {
            toml::Value::String(s) => out.push((path.clone(), s.clone())),
            toml::Value::Table(sub) => string_leaves(sub, path, out),
            _ => {}
        }
        path.pop();
    }
}

fn set_leaf(t: &mut toml::Table, path: &[String], v: &str) {
    match path {
        [last] => {
            t.insert(last.clone(), toml::Value::String(v.into()));
        }
        [first, rest @ ..] => {
            if let Some(toml::Value::Table(sub)) = t.get_mut(first) {
                set_leaf(sub, rest, v);
            }
        }
        [] => {}
    }
}

/// The backquoted words after "expected" in serde's unknown-variant message
/// ("expected `fifo` or `data-out-first`", "expected one of `a`, `b`, `c`").
fn expected_words(msg: &str) -> Vec<String> {
    let Some(i) = msg.find("unknown variant") else {
        return Vec::new();
    };
    let Some(j) = msg[i..].find("expected") else {
        return Vec::new();
    };
    let line = msg[i + j..].lines().next().unwrap_or("");
    line.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// `ftl.mapping.cmt_bytes` (type = "demand"): up to 1 TiB of controller DRAM. The table is
/// allocated as it fills, so a large value costs memory only for entries a run touches.
pub const CMT_BYTES: Range = Range::int(1, 1 << 40);
/// `ftl.mapping.entry_bytes`: bytes of DRAM per cached entry.
pub const CMT_ENTRY_BYTES: Range = Range::int(1, 64);

/// Up-front model state a configuration may ask for. The simulator itself needs tens of MB
/// for published drives (docs/BENCHMARKS.md); this rejects geometries whose per-block and
/// per-router tables would not fit a laptop, before anything is allocated.
pub const MODEL_STATE_LIMIT_BYTES: u64 = 4 << 30;

/// The environment variable that moves the limit, in GB (10^9 bytes), for a machine with
/// more memory: read by configuration checks, the timed run's memory guard and lifetime mode.
pub const STATE_LIMIT_ENV: &str = "LAGOON_MAX_STATE_GB";

/// "more than the L GB limit (LAGOON_MAX_STATE_GB moves it)", for every message about it.
pub fn over_state_limit(limit: u64) -> String {
    format!(
        "more than the {:.2} GB limit ({STATE_LIMIT_ENV} moves it)",
        limit as f64 / 1e9
    )
}

/// The model-state limit in force: [`STATE_LIMIT_ENV`] if set (a number of GB in
/// 0.001..=1,000,000), else [`MODEL_STATE_LIMIT_BYTES`].
pub fn model_state_limit() -> Result<u64, ConfigError> {
    match std::env::var(STATE_LIMIT_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(MODEL_STATE_LIMIT_BYTES),
        Err(std::env::VarError::NotUnicode(v)) => Err(key_error(
            STATE_LIMIT_ENV,
            v.to_string_lossy(),
            "not a number of GB",
        )),
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(gb) if (0.001..=1e6).contains(&gb) => Ok((gb * 1e9) as u64),
            _ => Err(key_error(
                STATE_LIMIT_ENV,
                &v,
                "must be a number of GB in 0.001..=1000000 (the model-state limit)",
            )),
        },
    }
}

pub(crate) fn key_error(key: &str, v: impl ToString, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: v.to_string(),
        reason: reason.to_string(),
    }
}

/// Each key against its declared range.
pub(super) fn check_ranges(cfg: &SsdConfig) -> Result<(), ConfigError> {
    for k in cfg.keys() {
        k.range.check(k.value).map_err(|reason| {
            let unit = if k.unit.is_empty() {
                String::new()
            } else {
                format!(" ({})", k.unit)
            };
            key_error(&k.key, k.value, format!("{reason}{unit}"))
        })?;
    }
    Ok(())
}
