//! Drive configurations from Python: a preset name or TOML path (as `--ssd`), or a dict laid
//! out as the TOML files are (with `base = "..."` allowed), plus dotted-key overrides. Dicts and
//! overrides go through the TOML loader, so they are checked exactly as a file is.

use anyhow::{anyhow, bail, Result};
use lagoon_core::config::SsdConfig;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

pub fn load(spec: &Bound<'_, PyAny>, overrides: Option<&Bound<'_, PyDict>>) -> Result<SsdConfig> {
    let cfg = if let Ok(s) = spec.cast::<PyString>() {
        SsdConfig::load(&s.to_string())?
    } else if spec.is_instance_of::<PyDict>() {
        let table: toml::Table =
            pythonize::depythonize(spec).map_err(|e| anyhow!("configuration dict: {e}"))?;
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
        let value: toml::Value =
            pythonize::depythonize(&v).map_err(|e| anyhow!("overrides: {key}: {e}"))?;
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
