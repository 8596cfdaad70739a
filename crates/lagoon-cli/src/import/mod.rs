//! `lagoon import`: other simulators' configurations as Lagoon's.

pub use lagoon_lab::import::mqsim;

use anyhow::Result;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ImportCommand {
    /// An MQSim device configuration (ssdconfig.xml) as a Lagoon TOML, and its workload file's
    /// IO scenarios as `lagoon run` options; every MQSim parameter is mapped or listed as not
    /// modelled, with the reason.
    Mqsim {
        /// MQSim device configuration (<Execution_Parameter_Set>).
        ssd: PathBuf,
        /// MQSim workload definitions (<MQSim_IO_Scenarios>).
        workload: Option<PathBuf>,
        /// Write DIR/<name>.toml and DIR/runs.txt (the `lagoon run` command per scenario)
        /// instead of printing the TOML.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

pub fn import(cmd: ImportCommand) -> Result<()> {
    match cmd {
        ImportCommand::Mqsim { ssd, workload, out } => {
            if let Some(d) = &out {
                if lagoon_lab::out::is_stdout(d) {
                    anyhow::bail!("--out names a directory for the TOML and runs.txt; leave it out to print the TOML");
                }
                if d.exists() && !d.is_dir() {
                    anyhow::bail!("--out {}: exists and is not a directory", d.display());
                }
            }
            let imp = mqsim::import(&ssd, workload.as_deref())?;
            match out {
                Some(dir) => {
                    let cfg = imp.write(&dir)?;
                    lagoon_lab::outln!(
                        "{}: {} MQSim parameters not modelled (listed at its top)",
                        cfg.display(),
                        imp.not_modelled.len()
                    )?;
                    for c in imp.commands(&cfg) {
                        lagoon_lab::outln!("{c}")?;
                    }
                }
                None => {
                    lagoon_lab::out!("{}", imp.toml)?;
                    let cmds = imp.commands(&PathBuf::from(format!("{}.toml", imp.name)));
                    if !cmds.is_empty() {
                        lagoon_lab::outln!("\n# Runs (MQSim IO scenarios):")?;
                        for c in cmds {
                            lagoon_lab::outln!("#   {c}")?;
                        }
                    }
                }
            }
            Ok(())
        }
    }
}
