//! Drive configurations from Python: a preset name or TOML path (as `--ssd`), or a dict laid
//! out as the TOML files are (with `base = "..."` allowed), plus dotted-key overrides. Dicts and
//! overrides go through the TOML loader, so they are checked exactly as a file is.

use anyhow::{anyhow, bail, Result};
use lagoon_core::config::SsdConfig;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::collections::HashSet;

/// Deepest nesting of dicts and lists a configuration may have (the TOML files nest two).
pub const MAX_DEPTH: usize = 16;
/// Most values (of every level) a configuration dict may hold.
pub const MAX_VALUES: usize = 100_000;

/// A Python value as TOML, walked with bounded depth and size: a dict or list that contains
/// itself, nesting deeper than [`MAX_DEPTH`], more than [`MAX_VALUES`] values, a key that is
/// not a string, or a value TOML has no type for is one error naming the key (`flash.read_ns`).
pub fn to_toml(obj: &Bound<'_, PyAny>, path: &str) -> Result<toml::Value> {
    let mut seen = HashSet::new();
    let mut count = 0;
    walk(obj, path, 0, &mut seen, &mut count)
}

fn walk(
    obj: &Bound<'_, PyAny>,
    path: &str,
    depth: usize,
    seen: &mut HashSet<usize>,
    count: &mut usize,
) -> Result<toml::Value> {
    *count += 1;
    if *count > MAX_VALUES {
        bail!("{path}: more than {MAX_VALUES} values in the configuration");
    }
    if depth > MAX_DEPTH {
        bail!("{path}: nested more than {MAX_DEPTH} levels deep");
    }
    let type_name = || {
        obj.get_type()
            .name()
            .map_or("object".to_string(), |n| n.to_string())
    };
    if obj.is_none() {
        bail!("{path}: None has no TOML value (leave the key out to keep the preset's)");
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| anyhow!("{path}: {} does not fit a 64-bit integer", obj));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_string()));
    }
    let container = obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>();
    if container {
        let id = obj.as_ptr() as usize;
        if !seen.insert(id) {
            bail!("{path}: the {} contains itself", type_name());
        }
        let v = if let Ok(d) = obj.cast::<PyDict>() {
            let mut t = toml::Table::new();
            for (k, v) in d.iter() {
                let Ok(k) = k.cast::<PyString>().map(|k| k.to_string()) else {
                    bail!(
                        "{path}: key {} is a {}, not a string",
                        k.repr().map_or("?".into(), |r| r.to_string()),
                        k.get_type()
                            .name()
                            .map_or("?".to_string(), |n| n.to_string())
                    );
                };
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                t.insert(k, walk(&v, &sub, depth + 1, seen, count)?);
            }
            toml::Value::Table(t)
        } else {
            let mut a = Vec::new();
            for (i, v) in obj.try_iter()?.enumerate() {
                a.push(walk(&v?, &format!("{path}[{i}]"), depth + 1, seen, count)?);
            }
            toml::Value::Array(a)
        };
        seen.remove(&id);
        return Ok(v);
    }
    // numpy scalars and other numbers: through __index__ or __float__.
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(f) = obj.extract::<f64>() {
        return Ok(toml::Value::Float(f));
    }
    bail!("{path}: a {} has no TOML value", type_name())
}

pub fn load(spec: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> Result<SsdConfig> {
    let cfg = if let Ok(s) = spec.cast::<PyString>() {
        SsdConfig::load(&s.to_string())?
    } else if spec.is_instance_of::<PyDict>() {
        let table = match to_toml(spec, "").map_err(|e| {
            anyhow!(
                "configuration dict: {}",
                e.to_string().trim_start_matches(": ")
            )
        })? {
            toml::Value::Table(t) => t,
            _ => unreachable!("a dict walks to a table"),
        };
        SsdConfig::from_toml(&toml::to_string(&table)?, "configuration dict")?
    } else {
        bail!("a configuration is a preset name, a TOML file path or a dict");
    };
    match overrides {
        Some(o) if !o.is_empty() => apply(cfg, o),
        _ => Ok(cfg),
    }
}

/// Set each dotted key (`flash.read_ns`) that the configuration has; the result is validated
/// as a file would be.
fn apply(cfg: SsdConfig, overrides: &Bound<'_, PyDict>) -> Result<SsdConfig> {
    let mut table = toml::Table::try_from(&cfg)?;
    for (k, v) in overrides.iter() {
        let key: String = k
            .extract()
            .map_err(|_| anyhow!("overrides: keys are dotted names such as \"flash.read_ns\""))?;
        let value = to_toml(&v, &key).map_err(|e| anyhow!("overrides: {e}"))?;
        let mut t = &mut table;
        let mut parts = key.split('.').peekable();
        while let Some(p) = parts.next() {
            let unknown = || {
                anyhow!("overrides: unknown configuration key '{key}' (`lagoon config --keys` lists them)")
            };
            if parts.peek().is_none() {
                match t.get_mut(p) {
                    Some(slot) if !slot.is_table() => *slot = value.clone(),
                    _ => return Err(unknown()),
                }
            } else {
                t = t
                    .get_mut(p)
                    .and_then(|x| x.as_table_mut())
                    .ok_or_else(unknown)?;
            }
        }
    }
    Ok(SsdConfig::from_toml(
        &toml::to_string(&table)?,
        "overrides",
    )?)
}
