//! The configuration's schema: what each key holds (number, word, flag, text, list or table),
//! its unit, its valid range and its doc, declared once per key with its default by
//! `section!` (`declare.rs`). Validation, `lagoon config --keys`, the fuzzer and
//! `docs/CONFIG.md` all read it from here.
//!
//! Ranges are wide enough for every published drive and narrow enough that no product of
//! them overflows simulated time (`u64` picoseconds) or the 32-bit page and block indices,
//! and that the model's up-front state fits the memory budget below.

use super::{ConfigError, SsdConfig};
use serde::de::{DeserializeOwned, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

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

/// Flash and network times up to 10 s; rates from 1 MB/s (so no single transfer of a 32 KB
/// page overflows a run's picosecond clock).
pub const TIME_NS: Range = Range::real(0.0, 1e10);
pub const RATE_MB_S: Range = Range::real(1.0, 1e8);

/// A numeric key's current value, as the schema sees it.
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

/// What a key holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An integer in its range.
    Int,
    /// A finite real in its range.
    Real,
    /// `true` or `false`.
    Bool,
    /// One of a fixed set of words (an enum).
    Word,
    /// Any text (a name, a file).
    Text,
    /// A list of numbers (their rules are in `rules.rs`).
    List,
    /// A sub-table with keys of its own.
    Table,
}

/// A key's value in one configuration.
pub enum Field<'a> {
    Number(Value),
    /// A word, flag, text or list as TOML writes it.
    Toml(toml::Value),
    Table(&'a dyn Table),
    /// A key of another variant (`ftl.mapping.cmt_bytes` when `type = "ideal"`).
    Absent,
}

/// How a field's Rust type appears in the schema. Implemented for the numbers, `bool`,
/// `String`, lists, every word enum (`word_keys!`) and every section (`section!`).
pub trait KeyType: Serialize + Sized {
    const KIND: Kind;

    /// The value as the schema reads it.
    fn field(&self) -> Field<'_> {
        toml::Value::try_from(self).map_or(Field::Absent, Field::Toml)
    }

    /// The words a word key takes (serde's own list, aliases included); empty otherwise.
    fn words() -> &'static [&'static str] {
        &[]
    }

    /// What `#[serde(deserialize_with)]` calls on every declared field: a table refuses
    /// anything but a table (TOML maps an array onto a struct's fields by position).
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>
    where
        Self: Deserialize<'de>,
    {
        Self::deserialize(d)
    }
}

impl KeyType for u32 {
    const KIND: Kind = Kind::Int;
    fn field(&self) -> Field<'_> {
        Field::Number(Value::Int(*self as u64))
    }
}
impl KeyType for u64 {
    const KIND: Kind = Kind::Int;
    fn field(&self) -> Field<'_> {
        Field::Number(Value::Int(*self))
    }
}
impl KeyType for f64 {
    const KIND: Kind = Kind::Real;
    fn field(&self) -> Field<'_> {
        Field::Number(Value::Real(*self))
    }
}
impl KeyType for bool {
    const KIND: Kind = Kind::Bool;
}
impl KeyType for String {
    const KIND: Kind = Kind::Text;
}
impl<T: Serialize> KeyType for Vec<T> {
    const KIND: Kind = Kind::List;
}

/// Declares enums as word keys: their words are serde's (`rename_all`, aliases).
macro_rules! word_keys {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::config::schema::KeyType for $t {
            const KIND: $crate::config::schema::Kind = $crate::config::schema::Kind::Word;
            fn words() -> &'static [&'static str] {
                $crate::config::schema::words_of::<Self>()
            }
        }
    )*};
}
pub(crate) use word_keys;

/// The words an enum's derived `Deserialize` accepts, taken from the list serde itself gives
/// when it refuses a word: a plain enum as a string, a tagged one (`ftl.mapping`) by its `type`.
pub fn words_of<T: DeserializeOwned>() -> &'static [&'static str] {
    #[derive(Debug)]
    struct Words(&'static [&'static str]);
    impl std::fmt::Display for Words {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{:?}", self.0)
        }
    }
    impl std::error::Error for Words {}
    impl serde::de::Error for Words {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Words(&[])
        }
        fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Self {
            Words(expected)
        }
    }
    const NO_WORD: &str = "\u{0}";
    let plain: serde::de::value::StrDeserializer<Words> = NO_WORD.into_deserializer();
    match T::deserialize(plain) {
        Err(Words(w)) if !w.is_empty() => w,
        _ => {
            let tagged = serde::de::value::MapDeserializer::<_, Words>::new(std::iter::once((
                "type", NO_WORD,
            )));
            match T::deserialize(tagged) {
                Err(Words(w)) => w,
                Ok(_) => &[],
            }
        }
    }
}

/// A section's field deserialized as a table only, named in the error otherwise.
pub fn table_only<'de, D, T>(d: D, name: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Only<T>(&'static str, std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Only<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "a table: [{}] with its keys under it", self.0)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_map(Only(name, std::marker::PhantomData))
}

/// One key of a section `S`, as `section!` declares it.
pub struct Param<S> {
    pub name: &'static str,
    /// The doc comment's lines.
    pub doc: &'static str,
    /// Unit as written in docs and errors ("ns", "MB/s", "bytes", "" for counts).
    pub unit: &'static str,
    /// Numbers only (checked when the declaration compiles: [`checked`]).
    pub range: Option<Range>,
    pub kind: Kind,
    pub words: fn() -> &'static [&'static str],
    pub get: for<'a> fn(&'a S) -> Field<'a>,
}

/// A number needs a range of its own kind; nothing else has one. Const, so a wrong
/// declaration fails to compile.
pub const fn checked(kind: Kind, range: Option<Range>) -> Option<Range> {
    match (kind, &range) {
        (Kind::Int, Some(Range::Int { .. })) | (Kind::Real, Some(Range::Real { .. })) => {}
        (Kind::Int, _) => panic!("an integer key is declared with an integer range"),
        (Kind::Real, _) => panic!("a real key is declared with a real range"),
        (_, Some(_)) => panic!("only a number key has a range"),
        (_, None) => {}
    }
    range
}

/// A table of the configuration: its TOML name, doc and keys.
pub trait Section: Sized + 'static {
    /// Dotted name ("flash.onfi"); "" for the whole drive.
    const NAME: &'static str;
    const DOC: &'static str;
    const PARAMS: &'static [Param<Self>];
}

/// One key with its value in a configuration.
pub struct Key<'a> {
    pub name: &'static str,
    pub doc: &'static str,
    pub unit: &'static str,
    pub range: Option<Range>,
    pub kind: Kind,
    pub words: &'static [&'static str],
    pub field: Field<'a>,
}

/// A section seen through the schema, whatever its type (what the walks take).
pub trait Table {
    fn name(&self) -> &'static str;
    fn doc(&self) -> &'static str;
    fn keys(&self) -> Vec<Key<'_>>;
}

impl<S: Section> Table for S {
    fn name(&self) -> &'static str {
        S::NAME
    }
    fn doc(&self) -> &'static str {
        S::DOC
    }
    fn keys(&self) -> Vec<Key<'_>> {
        S::PARAMS
            .iter()
            .map(|p| Key {
                name: p.name,
                doc: p.doc,
                unit: p.unit,
                range: p.range,
                kind: p.kind,
                words: (p.words)(),
                field: (p.get)(self),
            })
            .collect()
    }
}

/// Every table from `t` down: a table's keys, then its sub-tables in order (`[flash]`, then
/// `[flash.onfi]`), as `lagoon config --keys` and docs/CONFIG.md list them.
pub fn walk<'a>(t: &'a dyn Table, f: &mut dyn FnMut(&'a dyn Table, &[Key<'a>])) {
    let keys = t.keys();
    f(t, &keys);
    for k in &keys {
        if let Field::Table(sub) = k.field {
            walk(sub, f);
        }
    }
}

/// `section.key`, or `key` at the top.
pub fn dotted(section: &str, key: &str) -> String {
    if section.is_empty() {
        key.to_string()
    } else {
        format!("{section}.{key}")
    }
}

/// Every numeric key of the whole configuration, with its full dotted name, unit, range and
/// current value: what validation walks, what `lagoon config --keys` prints, and what the
/// config fuzzer attacks.
pub struct KeyInfo {
    pub key: String,
    pub unit: &'static str,
    pub range: Range,
    pub value: Value,
}

/// A key that takes one of a fixed set of words (`flash.multiplane = "same-offset"`), with its
/// current value and every word it accepts.
pub struct ChoiceInfo {
    pub key: String,
    pub value: String,
    pub choices: Vec<String>,
}

impl SsdConfig {
    /// Every numeric key with its value, in declaration order.
    pub fn keys(&self) -> Vec<KeyInfo> {
        let mut out = Vec::new();
        walk(self, &mut |t, keys| {
            for k in keys {
                if let (Field::Number(value), Some(range)) = (&k.field, k.range) {
                    out.push(KeyInfo {
                        key: dotted(t.name(), k.name),
                        unit: k.unit,
                        range,
                        value: *value,
                    });
                }
            }
        });
        out
    }

    /// Every key that takes one of a set of words, with its words, sorted by key (what
    /// `lagoon config --keys` prints after the numeric keys).
    pub fn choice_keys(&self) -> Vec<ChoiceInfo> {
        let mut out = Vec::new();
        walk(self, &mut |t, keys| {
            for k in keys.iter().filter(|k| k.kind == Kind::Word) {
                if let Field::Toml(toml::Value::String(value)) = &k.field {
                    out.push(ChoiceInfo {
                        key: dotted(t.name(), k.name),
                        value: value.clone(),
                        choices: k.words.iter().map(|w| w.to_string()).collect(),
                    });
                }
            }
        });
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }
}

/// Up-front model state a configuration may ask for. The simulator itself needs tens of MB
/// for published drives (docs/BENCHMARKS.md); this rejects geometries whose per-block and
/// per-router tables would not fit a laptop, before anything is allocated.
pub const MODEL_STATE_LIMIT_BYTES: u64 = 4 << 30;

/// Entries per chunk of the FTL's logical-to-physical map, as a power of two
/// (`crate::ssd::ftl::mapping` explains the size): the up-front estimate counts a pointer per
/// chunk.
pub const L2P_CHUNK_BITS: u32 = 8;

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
