//! Lagoon's experiment lab: what stands between the simulator (`lagoon-core`) and a paper's
//! evaluation. Both front ends use it: the `lagoon` command (`lagoon-cli`) and the Python
//! package (`lagoon-py`).
//!
//! - [`reproduce`]: the five papers' reproductions, their published numbers as data
//!   (`reproduce/papers/*.toml`), headlines with intervals and verdicts, evidence, sensitivity
//!   searches, FIDELITY.md, and the render path that redraws a results folder from its files;
//! - [`batch`]: many simulations and lifetimes at once, on local threads or an [`batch::Executor`]
//!   (Dask from Python), within the machine's memory;
//! - [`plot`]: SVG figures; [`provenance`]: the version, commit and configuration behind a
//!   result; [`invariants`]: the checks every report passes;
//! - [`import`]: other simulators' configurations (MQSim) as Lagoon's;
//! - [`out`], [`progress`], [`interrupt`]: checked output files, progress bars and Ctrl-C,
//!   shared with the command's own subcommands.

pub mod batch;
pub mod help;
pub mod interrupt;
pub mod invariants;
pub mod out;
pub mod plot;
pub mod progress;
pub mod provenance;
pub mod reproduce;
pub mod run;

/// Other simulators' configurations as Lagoon's.
pub mod import {
    pub mod mqsim;
}

use anyhow::{bail, Context, Result};
use lagoon_core::config::SsdConfig;

/// `--design NAME`: turn the controller model on with a Table 2 configuration.
pub fn set_design(ssd: &mut SsdConfig, name: &str) -> Result<()> {
    use lagoon_core::config::Design;
    let Some(d) = Design::from_name(name) else {
        bail!(
            "--design {name}: unknown configuration (known: {})",
            Design::ALL.map(|d| d.name()).join(", ")
        );
    };
    ssd.controller.enabled = true;
    ssd.controller.design = d;
    ssd.validate().context("--design")?;
    Ok(())
}
