//! Mixes into flows: `syn:<mix>` (Venice Table 3) becomes one synthetic spec per
//! constituent ([`crate::presets`] holds the mixes, [`crate::synthetic`] parses the result).

use std::fmt::Write as _;

use crate::num::parse_u64;
use crate::presets::{fmt_us, mix_preset, PRESET_BURST};
use crate::synthetic::{spec_item, KEYS};
use crate::{SyntheticSpec, WorkloadError};

/// Expands a workload argument into one workload per flow.
///
/// `syn:<mix>[,key=value,...]` (a mix of Venice Table 3, e.g. `syn:mix1`) becomes one
/// `syn:<constituent>,arrival=bursty:<scaled mean>/<B>,count=<share>[,key=value,...]`
/// spec per constituent, which [`SyntheticSpec::parse`] accepts: means scaled by
/// [`MixPreset::scale_factor`], the mix's `count` (the total; default
/// [`MixPreset::default_count`]) split by [`MixPreset::split_count`], and every other
/// given key applied to every flow, winning over the preset's (`syn:mix1,arrival=qd:16`
/// runs each flow closed loop at depth 16). Anything else (a trace path, any other
/// `syn:` spec) comes back unchanged as the only element.
///
/// Errors name the offending key (a bad key or value is checked by parsing every flow's
/// spec).
pub fn expand_workload(workload: &str) -> Result<Vec<String>, WorkloadError> {
    let unchanged = || Ok(vec![workload.to_string()]);
    if !SyntheticSpec::is_synthetic(workload) {
        return unchanged();
    }
    let body = workload.trim().strip_prefix("syn:").unwrap_or_default();
    let mut items = body.split(',').map(str::trim).filter(|i| !i.is_empty());
    let Some(mix) = items.next().and_then(mix_preset) else {
        return unchanged();
    };
    let mut total = mix.default_count();
    let mut arrival_given = false;
    let mut overrides = String::new();
    let mut seen = [false; KEYS.len()];
    for item in items {
        let (_, key, value) = spec_item(workload, item, &mut seen)?;
        match key {
            "count" => {
                total = parse_u64(value).ok_or_else(|| {
                    WorkloadError::bad_value(
                        key,
                        value,
                        "expected a whole number of requests (the total over the mix's flows)",
                    )
                })?
            }
            _ => {
                arrival_given |= key == "arrival";
                write!(overrides, ",{key}={value}").expect("writing to a String");
            }
        }
    }
    let counts = mix.split_count(total);
    if counts.contains(&0) {
        // A flow of no request is refused (`count` is at least 1): name the least total.
        let least = (total..total.saturating_add(1 << 20))
            .find(|&t| !mix.split_count(t).contains(&0))
            .unwrap_or(u64::MAX);
        return Err(WorkloadError::bad_value(
            "count",
            &total.to_string(),
            format!(
                "the mix's {} flows share it by their rates and one would get no request; give at least {least}",
                counts.len()
            ),
        ));
    }
    let mut flows = Vec::with_capacity(counts.len());
    for ((p, mean_us), count) in mix.scaled_constituents().zip(counts) {
        let mut spec = format!("syn:{}", p.name);
        if !arrival_given {
            let mean_ns = (mean_us * 1e3).round().max(1.0) as u64;
            write!(spec, ",arrival=bursty:{}/{PRESET_BURST}", fmt_us(mean_ns))
                .expect("writing to a String");
        }
        write!(spec, ",count={count}{overrides}").expect("writing to a String");
        SyntheticSpec::parse(&spec)?;
        flows.push(spec);
    }
    Ok(flows)
}
