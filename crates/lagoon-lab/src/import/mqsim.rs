//! `lagoon import mqsim SSDCONFIG.xml [WORKLOAD.xml]`: an MQSim device configuration as a Lagoon
//! TOML, and its workload file's IO scenarios as `lagoon run` options. Every MQSim parameter is
//! either mapped (the TOML line names it) or listed, by name, as not modelled with the reason.
//! Names and units are those of MQSim's parser (src/exec/*_Parameter_Set.cpp, commit 7ec40e3).

use anyhow::{anyhow, bail, Context, Result};
use lagoon_core::config::SsdConfig;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// MQSim's sector: request sizes and alignments are in 512-byte sectors.
const SECTOR: u64 = 512;

#[derive(Debug, Serialize)]
pub struct Import {
    /// Configuration name (the XML file's stem).
    pub name: String,
    /// The Lagoon configuration, with every mapped MQSim parameter named in a comment.
    pub toml: String,
    /// One `lagoon run` option list per MQSim IO_Scenario (without `--ssd`).
    pub runs: Vec<Vec<String>>,
    /// MQSim parameters Lagoon does not model: (parameter, value, reason).
    pub not_modelled: Vec<(String, String, String)>,
}

/// One XML section's parameters, in file order; each is taken once by the mapping code, and
/// whatever is left over is reported.
struct Params {
    section: String,
    values: Vec<(String, String)>,
    taken: Vec<bool>,
}

impl Params {
    /// The parameters of `node` in `file`; a parameter given twice is an error naming both
    /// lines (MQSim's parser keeps the last, Lagoon's kept the first: neither says so).
    fn new(section: &str, node: roxmltree::Node, file: &Path) -> Result<Self> {
        let doc = node.document();
        let mut values: Vec<(String, String)> = Vec::new();
        let mut lines: Vec<u32> = Vec::new();
        for c in node
            .children()
            .filter(|c| c.is_element() && c.children().all(|g| !g.is_element()))
        {
            let name = c.tag_name().name();
            let line = doc.text_pos_at(c.range().start).row;
            if let Some(i) = values.iter().position(|(k, _)| k == name) {
                bail!(
                    "{}: {section}: {name} is given twice (lines {} and {line}); keep one",
                    file.display(),
                    lines[i]
                );
            }
            values.push((name.to_string(), c.text().unwrap_or("").trim().to_string()));
            lines.push(line);
        }
        let taken = vec![false; values.len()];
        Ok(Params {
            section: section.into(),
            values,
            taken,
        })
    }

    fn take(&mut self, name: &str) -> Option<String> {
        let i = self.values.iter().position(|(k, _)| k == name)?;
        self.taken[i] = true;
        Some(self.values[i].1.clone())
    }

    /// A number: not NaN or infinite, an integer within i64 (what TOML holds), and of `T`.
    fn num<T: std::str::FromStr>(&mut self, name: &str) -> Result<Option<T>> {
        let Some(v) = self.take(name) else {
            return Ok(None);
        };
        if let Ok(x) = v.parse::<f64>() {
            if !x.is_finite() {
                bail!("{}: {name} = '{v}' is not a finite number", self.section);
            }
        }
        if let Ok(i) = v.parse::<i128>() {
            if i > i64::MAX as i128 || i < i64::MIN as i128 {
                bail!(
                    "{}: {name} = '{v}' is out of range (integers are at most {})",
                    self.section,
                    i64::MAX
                );
            }
        }
        v.parse().map(Some).map_err(|_| {
            anyhow!(
                "{}: {name} = '{v}' is not a number of its type ({})",
                self.section,
                std::any::type_name::<T>()
            )
        })
    }

    fn flag(&mut self, name: &str) -> Result<Option<bool>> {
        match self.take(name).as_deref().map(str::to_ascii_lowercase) {
            None => Ok(None),
            Some(v) if v == "true" => Ok(Some(true)),
            Some(v) if v == "false" => Ok(Some(false)),
            Some(v) => bail!("{}: {name} = '{v}' is not true or false", self.section),
        }
    }
}

/// The TOML being written: `[section] key = value  # MQSim parameter`.
#[derive(Default)]
struct Toml {
    sections: BTreeMap<&'static str, Vec<String>>,
    order: Vec<&'static str>,
}

impl Toml {
    fn set(&mut self, section: &'static str, key: &str, v: toml::Value, from: &str) {
        if !self.sections.contains_key(section) {
            self.order.push(section);
        }
        self.sections
            .entry(section)
            .or_default()
            .push(format!("{key} = {v}  # {from}"));
    }

    fn text(&self, header: &str) -> String {
        let mut s = header.to_string();
        for sec in &self.order {
            let _ = writeln!(s, "\n[{sec}]");
            for l in &self.sections[sec] {
                let _ = writeln!(s, "{l}");
            }
        }
        s
    }
}

/// An integer as TOML; values `num` let through fit, anything larger is kept at i64's
/// largest for the configuration's range check to refuse by name.
fn int(v: u64) -> toml::Value {
    toml::Value::Integer(i64::try_from(v).unwrap_or(i64::MAX))
}

/// Deepest element nesting an MQSim file may have (they nest three or four levels).
pub const MAX_XML_DEPTH: usize = 64;

/// Refuse XML nested deeper than [`MAX_XML_DEPTH`] before parsing it, so a hostile file
/// cannot exhaust the stack; comments, CDATA, processing instructions and quoted attribute
/// values are skipped.
fn check_depth(text: &str, path: &Path) -> Result<()> {
    let b = text.as_bytes();
    let (mut i, mut depth, mut line) = (0usize, 0usize, 1usize);
    let skip_to = |i: usize, end: &str| -> usize {
        text[i..].find(end).map_or(b.len(), |k| i + k + end.len())
    };
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'<' if text[i..].starts_with("<!--") => i = skip_to(i, "-->"),
            b'<' if text[i..].starts_with("<![CDATA[") => i = skip_to(i, "]]>"),
            b'<' if text[i..].starts_with("<?") => i = skip_to(i, "?>"),
            b'<' if text[i..].starts_with("<!") => i = skip_to(i, ">"),
            b'<' if text[i..].starts_with("</") => {
                depth = depth.saturating_sub(1);
                i = skip_to(i, ">");
            }
            b'<' => {
                // An opening tag: to its end, past quoted values; `/>` closes it at once.
                let mut j = i + 1;
                let mut quote = None;
                while j < b.len() {
                    match (quote, b[j]) {
                        (None, b'"' | b'\'') => quote = Some(b[j]),
                        (Some(q), c) if c == q => quote = None,
                        (None, b'>') => break,
                        _ => {}
                    }
                    j += 1;
                }
                if !(j > i + 1 && b[j - 1] == b'/') {
                    depth += 1;
                    if depth > MAX_XML_DEPTH {
                        bail!(
                            "{}: line {line}: elements nested more than {MAX_XML_DEPTH} deep; not an MQSim file",
                            path.display()
                        );
                    }
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    Ok(())
}
fn float(v: f64) -> toml::Value {
    toml::Value::Float(v)
}
fn string(v: &str) -> toml::Value {
    toml::Value::String(v.into())
}

/// Why the suspension parameters change nothing, in MQSim as in Lagoon (read in MQSim's
/// source, commit 7ec40e3).
const NO_SUSPENSION: &str = "MQSim never suspends: in TSU_OutOfOrder and TSU_Priority_OutOfOrder (service_read_transaction, service_write_transaction) the chip-status switch falls through from WRITING and ERASING to `default: return false`, so no command is issued with SuspendRequired; Lagoon does not suspend either";

struct NotModelled(Vec<(String, String, String)>);

impl NotModelled {
    fn add(&mut self, p: &str, v: &str, why: &str) {
        self.0.push((p.into(), v.into(), why.into()));
    }

    /// Each (parameter, reason) that `p` has.
    fn take(&mut self, p: &mut Params, list: &[(&str, &str)]) {
        for &(k, why) in list {
            if let Some(v) = p.take(k) {
                self.add(k, &v, why);
            }
        }
    }
}

/// Read and convert. Values Lagoon cannot represent at all (another memory, SATA, hybrid
/// mapping) are errors, since any result would be a different drive.
pub fn import(ssd_xml: &Path, workload_xml: Option<&Path>) -> Result<Import> {
    let text = read(ssd_xml)?;
    let doc = parse(
        &text,
        ssd_xml,
        "Execution_Parameter_Set",
        "device configuration",
    )?;
    let root = doc.root_element();
    fn child<'a, 'i>(
        n: roxmltree::Node<'a, 'i>,
        tag: &str,
        file: &Path,
    ) -> Result<roxmltree::Node<'a, 'i>> {
        n.children()
            .find(|c| c.tag_name().name() == tag)
            .ok_or_else(|| anyhow!("{}: no <{tag}> section", file.display()))
    }
    let mut host = Params::new(
        "Host_Parameter_Set",
        child(root, "Host_Parameter_Set", ssd_xml)?,
        ssd_xml,
    )?;
    let dev_node = child(root, "Device_Parameter_Set", ssd_xml)?;
    let mut dev = Params::new("Device_Parameter_Set", dev_node, ssd_xml)?;
    let mut flash = Params::new(
        "Flash_Parameter_Set",
        child(dev_node, "Flash_Parameter_Set", ssd_xml)?,
        ssd_xml,
    )?;
    let mut t = Toml::default();
    let mut nm = NotModelled(Vec::new());
    map_host(&mut host, &mut t, &mut nm)?;
    let preconditioning = map_device(&mut dev, &mut t, &mut nm)?;
    map_flash(&mut flash, &mut t, &mut nm)?;

    let name = ssd_xml
        .file_stem()
        .map_or("mqsim".into(), |s| s.to_string_lossy().into_owned());
    // The workload file decides the occupancy and caching; without one, MQSim's defaults.
    let (runs, occupancy, caching) = match workload_xml {
        Some(w) => workloads(w, &mut nm)?,
        None => (Vec::new(), None, None),
    };
    let occupancy = if preconditioning {
        occupancy
    } else {
        Some(0.0)
    };
    let occ_from = if preconditioning {
        "Initial_Occupancy_Percentage of the flows (their mean: Lagoon shares the logical space equally)"
    } else {
        "Enabled_Preconditioning = false: no page holds data at the start"
    };
    if let Some(o) = occupancy {
        t.set("precondition", "occupancy", float(o), occ_from);
    }
    if let Some(c) = caching {
        t.set(
            "cache",
            "enabled",
            toml::Value::Boolean(c),
            "Device_Level_Data_Caching_Mode",
        );
    }
    for p in [&host, &dev, &flash] {
        for (i, (k, v)) in p.values.iter().enumerate() {
            if !p.taken[i] {
                nm.add(
                    k,
                    v,
                    &format!("not an MQSim {} parameter that Lagoon knows", p.section),
                );
            }
        }
    }
    let mut header = format!(
        "# Imported from MQSim: {} by `lagoon import mqsim`.\n# Keys not set here are Lagoon's defaults (the perf-optimized preset).\nname = \"{name}\"\n",
        ssd_xml.display()
    );
    if !nm.0.is_empty() {
        header.push_str("# MQSim parameters not modelled:\n");
        for (p, v, why) in &nm.0 {
            let _ = writeln!(header, "#   {p} = {v}: {why}");
        }
    }
    let toml = t.text(&header);
    SsdConfig::from_toml(&toml, &format!("{} (imported)", ssd_xml.display()))?;
    Ok(Import {
        name,
        toml,
        runs,
        not_modelled: nm.0,
    })
}

/// An MQSim XML file whose root element is `root`.
fn parse<'a>(
    text: &'a str,
    path: &Path,
    root: &str,
    what: &str,
) -> Result<roxmltree::Document<'a>> {
    check_depth(text, path)?;
    let doc =
        roxmltree::Document::parse(text).with_context(|| format!("{}: not XML", path.display()))?;
    let found = doc.root_element().tag_name().name();
    if found != root {
        bail!(
            "{}: not an MQSim {what} (root element <{found}>, expected <{root}>)",
            path.display()
        );
    }
    Ok(doc)
}

fn read(p: &Path) -> Result<String> {
    use std::io::Read;
    let mut s = String::new();
    std::fs::File::open(p)
        .and_then(|f| {
            f.take(SsdConfig::MAX_CONFIG_BYTES + 1)
                .read_to_string(&mut s)
        })
        .with_context(|| format!("cannot read {}", p.display()))?;
    if s.len() as u64 > SsdConfig::MAX_CONFIG_BYTES {
        bail!("{}: larger than 1 MiB; not an MQSim file", p.display());
    }
    Ok(s)
}

fn map_host(p: &mut Params, t: &mut Toml, nm: &mut NotModelled) -> Result<()> {
    if let Some(v) = p.num::<f64>("PCIe_Lane_Bandwidth")? {
        t.set(
            "host",
            "pcie_lane_gb_s",
            float(v),
            "PCIe_Lane_Bandwidth (GB/s)",
        );
    }
    if let Some(v) = p.num::<u64>("PCIe_Lane_Count")? {
        t.set("host", "pcie_lanes", int(v), "PCIe_Lane_Count");
    }
    nm.take(
        p,
        &[
            (
                "SATA_Processing_Delay",
                "Lagoon models an NVMe host interface only",
            ),
            (
                "Enable_ResponseTime_Logging",
                "an output option: `lagoon run --timeline` writes per-window results",
            ),
            (
                "ResponseTime_Logging_Period_Length",
                "an output option: `--timeline-window-ms` sets the window",
            ),
        ],
    );
    Ok(())
}

/// The device section; returns whether preconditioning is on.
fn map_device(p: &mut Params, t: &mut Toml, nm: &mut NotModelled) -> Result<bool> {
    let sec = "Device_Parameter_Set";
    let require = |p: &mut Params, k: &str, want: &str, why: &str| -> Result<()> {
        match p.take(k) {
            Some(v) if v != want => bail!("{sec}: {k} = {v}: {why}"),
            _ => Ok(()),
        }
    };
    require(
        p,
        "Memory_Type",
        "FLASH",
        "Lagoon simulates NAND flash only",
    )?;
    require(
        p,
        "HostInterface_Type",
        "NVME",
        "Lagoon models an NVMe host interface only",
    )?;
    require(
        p,
        "Address_Mapping",
        "PAGE_LEVEL",
        "Lagoon's FTL maps pages (MQSim's HYBRID is not implemented in MQSim either)",
    )?;
    if let Some(v) = p.take("Seed") {
        nm.add(
            "Seed",
            &v,
            "Lagoon derives every random choice from the run's --seed",
        );
    }
    let pre = p.flag("Enabled_Preconditioning")?.unwrap_or(true);
    if let Some(v) = p.num::<u64>("IO_Queue_Depth")? {
        t.set("host", "io_queue_depth", int(v), "IO_Queue_Depth");
    }
    if let Some(v) = p.num::<u64>("Queue_Fetch_Size")? {
        t.set("host", "fetch_size", int(v), "Queue_Fetch_Size");
    }
    if let Some(v) = p.take("Caching_Mechanism") {
        if v != "ADVANCED" {
            nm.add("Caching_Mechanism", &v, "Lagoon has one write cache, like MQSim's ADVANCED (the SIMPLE variant's differences are not modelled)");
        }
    }
    if let Some(v) = p.take("Data_Cache_Sharing_Mode") {
        if v != "SHARED" {
            nm.add(
                "Data_Cache_Sharing_Mode",
                &v,
                "Lagoon's write cache is shared by every flow",
            );
        }
    }
    if let Some(v) = p.num::<u64>("Data_Cache_Capacity")? {
        t.set(
            "cache",
            "capacity_bytes",
            int(v),
            "Data_Cache_Capacity (bytes)",
        );
    }
    if let Some(v) = p.take("Data_Cache_DRAM_Row_Size") {
        nm.add("Data_Cache_DRAM_Row_Size", &v, "Lagoon's DRAM takes access time + bytes at its rate for any size; MQSim uses the row size only past one row (docs/validation.md)");
    }
    let rate = p.num::<f64>("Data_Cache_DRAM_Data_Rate")?;
    let burst = p.num::<f64>("Data_Cache_DRAM_Data_Busrt_Size")?;
    if let (Some(r), Some(b)) = (rate, burst) {
        // MQSim (Data_Cache_Manager_Base): one burst per 1/rate us, two bursts per cycle (DDR).
        t.set(
            "cache",
            "dram_mb_s",
            float(2.0 * r * b),
            "2 x Data_Cache_DRAM_Data_Rate (MT/s) x Data_Cache_DRAM_Data_Busrt_Size (B): MQSim moves two bursts per 1/rate",
        );
    }
    let trcd = p.num::<f64>("Data_Cache_DRAM_tRCD")?;
    let tcl = p.num::<f64>("Data_Cache_DRAM_tCL")?;
    if let (Some(a), Some(b)) = (trcd, tcl) {
        t.set(
            "cache",
            "dram_access_ns",
            float(a + b),
            "Data_Cache_DRAM_tRCD + Data_Cache_DRAM_tCL (ns)",
        );
    }
    if let Some(v) = p.take("Data_Cache_DRAM_tRP") {
        nm.add("Data_Cache_DRAM_tRP", &v, "MQSim adds it only to accesses longer than a DRAM row, which Lagoon's DRAM does not distinguish");
    }
    let ideal = p.flag("Ideal_Mapping_Table")?.unwrap_or(false);
    let cmt = p.num::<u64>("CMT_Capacity")?;
    if ideal {
        t.set(
            "ftl.mapping",
            "type",
            string("ideal"),
            "Ideal_Mapping_Table = true",
        );
    } else if let Some(c) = cmt {
        t.set(
            "ftl.mapping",
            "type",
            string("demand"),
            "Ideal_Mapping_Table = false",
        );
        t.set("ftl.mapping", "cmt_bytes", int(c), "CMT_Capacity (bytes)");
    }
    if let Some(v) = p.take("CMT_Sharing_Mode") {
        if v != "SHARED" {
            nm.add(
                "CMT_Sharing_Mode",
                &v,
                "Lagoon's cached mapping table is shared by every flow",
            );
        }
    }
    if let Some(v) = p.take("Plane_Allocation_Scheme") {
        t.set("ftl", "allocation", string(&v), "Plane_Allocation_Scheme");
    }
    if let Some(v) = p.take("Transaction_Scheduling_Policy") {
        match v.as_str() {
            "PRIORITY_OUT_OF_ORDER" | "OUT_OF_ORDER" => t.set("ftl", "die_scheduling", string("priority"), "Transaction_Scheduling_Policy (out of order: reads before writes)"),
            _ => nm.add("Transaction_Scheduling_Policy", &v, "Lagoon's dies schedule out of order (priority) or in arrival order (ftl.die_scheduling = \"fifo\"); FLIN is not modelled"),
        }
    }
    if let Some(v) = p.num::<f64>("Overprovisioning_Ratio")? {
        t.set(
            "ftl",
            "overprovisioning",
            float(v),
            "Overprovisioning_Ratio",
        );
    }
    if let Some(v) = p.num::<f64>("GC_Exec_Threshold")? {
        t.set("ftl", "gc_threshold", float(v), "GC_Exec_Threshold");
    }
    if let Some(v) = p.num::<f64>("GC_Hard_Threshold")? {
        t.set("ftl", "gc_hard_threshold", float(v), "GC_Hard_Threshold");
    }
    if let Some(v) = p.take("GC_Block_Selection_Policy") {
        match v.as_str() {
            "GREEDY" => t.set("ftl", "gc_policy", string("greedy"), "GC_Block_Selection_Policy"),
            "RANDOM" => t.set("ftl", "gc_policy", string("random"), "GC_Block_Selection_Policy"),
            "FIFO" => t.set("ftl", "gc_policy", string("fifo"), "GC_Block_Selection_Policy"),
            _ => nm.add("GC_Block_Selection_Policy", &v, "Lagoon's victim policies are greedy, random and fifo (RGA, RANDOM_P, RANDOM_PP are not modelled; greedy is used)"),
        }
    }
    if let Some(v) = p.flag("Use_Copyback_for_GC")? {
        t.set(
            "ftl",
            "copyback",
            toml::Value::Boolean(v),
            "Use_Copyback_for_GC",
        );
    }
    if let Some(v) = p.flag("Preemptible_GC_Enabled")? {
        t.set(
            "ftl",
            "gc_preemptible",
            toml::Value::Boolean(v),
            "Preemptible_GC_Enabled",
        );
    }
    // Dynamic wear levelling: Lagoon always opens a plane's least-erased free block, as
    // MQSim's free pool ordered by erase count does when it is enabled.
    if p.flag("Dynamic_Wearleveling_Enabled")? == Some(false) {
        nm.add(
            "Dynamic_Wearleveling_Enabled",
            "false",
            "Lagoon always opens a plane's least-erased free block (dynamic wear levelling cannot be turned off)",
        );
    }
    // Static wear levelling (MQSim GC_and_WL_Unit_Base::run_static_wearleveling, default
    // threshold 100).
    let swl = p.flag("Static_Wearleveling_Enabled")?;
    let threshold = p.num::<u64>("Static_Wearleveling_Threshold")?;
    let static_wl = match (swl, threshold) {
        (Some(false), _) => Some((0, "Static_Wearleveling_Enabled = false")),
        (_, Some(0)) => {
            // MQSim levels while max - min >= threshold: at 0, after every erase, even with
            // equal counts; Lagoon's 0 is off.
            nm.add(
                "Static_Wearleveling_Threshold",
                "0",
                "MQSim levels after every erase even when the counts are equal; Lagoon's 0 turns levelling off, so 1, the nearest, is used",
            );
            Some((1, "Static_Wearleveling_Threshold = 0"))
        }
        (_, Some(v)) => Some((v, "Static_Wearleveling_Threshold")),
        (Some(true), None) => Some((
            100,
            "Static_Wearleveling_Enabled (MQSim's default threshold, 100)",
        )),
        (None, None) => None,
    };
    if let Some((v, from)) = static_wl {
        t.set("ftl", "static_wl_threshold", int(v), from);
    }
    nm.take(
        p,
        &[
            ("Preferred_suspend_erase_time_for_read", NO_SUSPENSION),
            ("Prefered_suspend_erase_time_for_read", NO_SUSPENSION),
            ("Preferred_suspend_erase_time_for_write", NO_SUSPENSION),
            ("Preferred_suspend_write_time_for_read", NO_SUSPENSION),
        ],
    );
    if let Some(v) = p.num::<u64>("Flash_Channel_Count")? {
        t.set("flash", "channels", int(v), "Flash_Channel_Count");
    }
    if let Some(v) = p.num::<u64>("Chip_No_Per_Channel")? {
        t.set("flash", "chips_per_channel", int(v), "Chip_No_Per_Channel");
    }
    let width = p.num::<f64>("Flash_Channel_Width")?;
    let rate = p.num::<f64>("Channel_Transfer_Rate")?;
    if let (Some(w), Some(r)) = (width, rate) {
        if r <= 0.0 {
            bail!("{sec}: Channel_Transfer_Rate = {r} must be positive (MT/s)");
        }
        // MQSim (SSD_Device.cpp): a transfer of `width` bytes every (integer ns) 1000 / rate.
        let ns = (1000.0 / r).trunc().max(1.0);
        t.set(
            "flash",
            "channel_mb_s",
            float(w * 1000.0 / ns),
            "Flash_Channel_Width (B) x Channel_Transfer_Rate (MT/s), with MQSim's whole-ns cycle",
        );
    }
    if let Some(v) = p.take("Flash_Comm_Protocol") {
        match v.as_str() {
            "NVDDR2" => t.set(
                "flash",
                "command_timing",
                string("onfi"),
                "Flash_Comm_Protocol = NVDDR2: ONFI NV-DDR2 command cycles",
            ),
            _ => nm.add(
                "Flash_Comm_Protocol",
                &v,
                "Lagoon times ONFI NV-DDR2 commands (MQSim implements only NVDDR2)",
            ),
        }
    }
    // MQSim pairs planes only at the same page offset (TSU_Base::issue_command_to_chip).
    t.set(
        "flash",
        "multiplane",
        string("same-offset"),
        "MQSim's multi-plane rule (same block and page offset)",
    );
    // NVM_PHY_ONFI_NVDDR2::Execute_simulator_event: a freed channel serves waiting read
    // data-outs before the scheduler hears it is idle (docs/validation.md).
    t.set(
        "flash",
        "channel_arbitration",
        string("data-out-first"),
        "MQSim's PHY serves waiting read data-outs before new commands",
    );
    Ok(pre)
}

fn map_flash(p: &mut Params, t: &mut Toml, nm: &mut NotModelled) -> Result<()> {
    let tech = p.take("Flash_Technology").unwrap_or_else(|| "MLC".into());
    let types: &[&str] = match tech.as_str() {
        "SLC" => &["LSB"],
        "MLC" => &["LSB", "MSB"],
        "TLC" => &["LSB", "CSB", "MSB"],
        other => bail!("Flash_Parameter_Set: Flash_Technology = {other}: expected SLC, MLC or TLC"),
    };
    for (op, key) in [("Read", "read_ns"), ("Program", "program_ns")] {
        let mut v = Vec::new();
        for ty in ["LSB", "CSB", "MSB"] {
            let name = format!("Page_{op}_Latency_{ty}");
            let x = p.num::<f64>(&name)?;
            match x {
                Some(x) if types.contains(&ty) => v.push(x),
                Some(x) => nm.add(
                    &name,
                    &x.to_string(),
                    &format!("{tech} flash has no {ty} pages (MQSim ignores it too)"),
                ),
                None => {}
            }
        }
        if let Some(&first) = v.first() {
            t.set(
                "flash",
                key,
                float(first),
                &format!("Page_{op}_Latency_LSB (ns)"),
            );
            if v.iter().any(|&x| x != first) {
                t.set(
                    "flash",
                    &format!("{key}_by_page_type"),
                    toml::Value::Array(v.iter().map(|&x| float(x)).collect()),
                    &format!("Page_{op}_Latency_{} (ns) by page type", types.join("/")),
                );
            }
        }
    }
    if let Some(v) = p.num::<f64>("Block_Erase_Latency")? {
        t.set("flash", "erase_ns", float(v), "Block_Erase_Latency (ns)");
    }
    for (k, key) in [
        ("Die_No_Per_Chip", "dies_per_chip"),
        ("Plane_No_Per_Die", "planes_per_die"),
        ("Block_No_Per_Plane", "blocks_per_plane"),
        ("Page_No_Per_Block", "pages_per_block"),
        ("Page_Capacity", "page_bytes"),
    ] {
        if let Some(v) = p.num::<u64>(k)? {
            t.set("flash", key, int(v), k);
        }
    }
    nm.take(
        p,
        &[
            (
                "Block_PE_Cycles_Limit",
                "MQSim only sizes its erase-count statistics with it (its blocks never fail); Lagoon's wear-out model ([wear], P/E limits per block) stays off, as in MQSim",
            ),
            ("CMD_Suspension_Support", NO_SUSPENSION),
            ("Suspend_Erase_Time", NO_SUSPENSION),
            ("Suspend_Program_Time", NO_SUSPENSION),
            (
                "Page_Metadat_Capacity",
                "Lagoon stores and moves user data only (no spare area)",
            ),
        ],
    );
    Ok(())
}

/// Lexical `a/../b` -> `b`, so an imported trace path reads as the file it is.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

type Workloads = (Vec<Vec<String>>, Option<f64>, Option<bool>);

/// Every IO_Scenario as `lagoon run` options; the flows' mean initial occupancy and whether
/// they cache writes.
fn workloads(path: &Path, nm: &mut NotModelled) -> Result<Workloads> {
    let text = read(path)?;
    let doc = parse(&text, path, "MQSim_IO_Scenarios", "workload file")?;
    let root = doc.root_element();
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut runs = Vec::new();
    let (mut occ, mut n_occ) = (0.0, 0);
    let mut caching = None;
    for (si, sc) in root.children().filter(|c| c.is_element()).enumerate() {
        let mut args = Vec::new();
        let mut repeat = None;
        for flow in sc.children().filter(|c| c.is_element()) {
            let kind = flow.tag_name().name();
            let mut p = Params::new(&format!("{} (scenario {})", kind, si + 1), flow, path)?;
            // Common to both kinds (IO_Flow_Parameter_Set_Base).
            nm.take(
                &mut p,
                &[
                    (
                        "Priority_Class",
                        "Lagoon's NVMe queues are served round robin, without priority classes",
                    ),
                    (
                        "Channel_IDs",
                        "Lagoon spreads every flow over the whole drive (no resource partitioning)",
                    ),
                    (
                        "Chip_IDs",
                        "Lagoon spreads every flow over the whole drive (no resource partitioning)",
                    ),
                    (
                        "Die_IDs",
                        "Lagoon spreads every flow over the whole drive (no resource partitioning)",
                    ),
                    (
                        "Plane_IDs",
                        "Lagoon spreads every flow over the whole drive (no resource partitioning)",
                    ),
                ],
            );
            if let Some(o) = p.num::<f64>("Initial_Occupancy_Percentage")? {
                occ += o / 100.0;
                n_occ += 1;
            }
            if let Some(m) = p.take("Device_Level_Data_Caching_Mode") {
                match m.as_str() {
                    "WRITE_CACHE" => caching = Some(true),
                    "TURNED_OFF" => caching = Some(false),
                    _ => {
                        caching = Some(true);
                        nm.add(
                            "Device_Level_Data_Caching_Mode",
                            &m,
                            "Lagoon's DRAM caches writes only (read data is not cached)",
                        );
                    }
                }
            }
            match kind {
                "IO_Flow_Parameter_Set_Trace_Based" => {
                    let file = p.take("File_Path").ok_or_else(|| {
                        anyhow!("{}: a trace flow without File_Path", path.display())
                    })?;
                    // MQSim opens the path from its working directory; the XML's own folder
                    // is the likelier base for a file shipped beside it.
                    args.push("--workload".into());
                    args.push(normalize(&dir.join(&file)).display().to_string());
                    args.push("--format".into());
                    args.push("mqsim".into());
                    // MQSim trace times are in Time_Unit; Lagoon reads them as ns.
                    let speedup = match p.take("Time_Unit").as_deref() {
                        None | Some("NANOSECOND") => None,
                        Some("MICROSECOND") => Some("0.001"),
                        Some("PICOSECOND") => Some("1000"),
                        Some(other) => bail!("{}: Time_Unit = {other}", path.display()),
                    };
                    args.push("--replay".into());
                    args.push(speedup.map_or("timed".into(), |k| format!("timed:{k}")));
                    if let Some(r) = p.num::<u32>("Relay_Count")? {
                        if r > 1 {
                            repeat = Some(r);
                        }
                    }
                    if let Some(v) = p.take("Percentage_To_Be_Executed") {
                        if v != "100" {
                            nm.add(
                                "Percentage_To_Be_Executed",
                                &v,
                                "Lagoon replays whole traces: cut one with `lagoon trace cut`",
                            );
                        }
                    }
                }
                "IO_Flow_Parameter_Set_Synthetic" => {
                    args.push("--workload".into());
                    args.push(synthetic(&mut p, nm)?);
                }
                other => bail!("{}: unknown flow <{other}>", path.display()),
            }
            for (i, (k, v)) in p.values.iter().enumerate() {
                if !p.taken[i] {
                    nm.add(
                        k,
                        v,
                        &format!("not an MQSim {kind} parameter that Lagoon knows"),
                    );
                }
            }
        }
        if let Some(r) = repeat {
            args.push("--repeat".into());
            args.push(r.to_string());
        }
        runs.push(args);
    }
    let occupancy = (n_occ > 0).then(|| occ / n_occ as f64);
    Ok((runs, occupancy, caching))
}

/// A synthetic flow as a `syn:` spec (crates/lagoon-workload/src/synthetic.rs).
fn synthetic(p: &mut Params, nm: &mut NotModelled) -> Result<String> {
    let mut spec = vec![];
    if let Some(r) = p.num::<f64>("Read_Percentage")? {
        spec.push(format!("read={r}"));
    }
    // Sizes and alignments in sectors, at most 2^31 of them (1 TiB): beyond, no syn: size.
    const MAX_SECTORS: u64 = 1 << 31;
    let section = p.section.clone();
    let sectors = |name: &str, v: u64| -> Result<u64> {
        if v > MAX_SECTORS {
            bail!("{section}: {name} = {v} sectors is more than {MAX_SECTORS} (1 TiB)");
        }
        Ok(v * SECTOR)
    };
    let avg = p.num::<u64>("Average_Request_Size")?.unwrap_or(8);
    sectors("Average_Request_Size", avg)?;
    let var = p.num::<f64>("Variance_Request_Size")?.unwrap_or(0.0);
    if var < 0.0 {
        bail!("{}: Variance_Request_Size = {var} is negative", p.section);
    }
    match p.take("Request_Size_Distribution").as_deref() {
        None | Some("FIXED") => spec.push(format!("size={}", avg * SECTOR)),
        Some("NORMAL") => {
            // MQSim draws Normal(avg, var) sectors; the uniform with the same mean and
            // standard deviation (half-width sqrt(3) sigma) stands in for it.
            let half = (3f64.sqrt() * var).round().min(MAX_SECTORS as f64) as u64;
            let lo = avg.saturating_sub(half).max(1);
            spec.push(format!(
                "size=uniform:{}-{}",
                lo * SECTOR,
                sectors("Average_Request_Size + its spread", avg + half)?
            ));
            nm.add(
                "Request_Size_Distribution",
                "NORMAL",
                "approximated by a uniform size with the same mean and standard deviation",
            );
        }
        Some(other) => bail!("{}: Request_Size_Distribution = {other}", p.section),
    }
    let hot = p.num::<f64>("Percentage_of_Hot_Region")?.unwrap_or(0.0);
    match p.take("Address_Distribution").as_deref() {
        None | Some("RANDOM_UNIFORM") => spec.push("addr=uniform".into()),
        // MQSim (IO_Flow_Synthetic.cpp): the hot region is the first H % of the space and
        // draws 100 - H % of the requests.
        Some("RANDOM_HOTCOLD") => spec.push(format!("addr=hotcold:{}/{}", 100.0 - hot, hot)),
        Some("STREAMING") => {
            spec.push("addr=seq".into());
            nm.add(
                "Address_Distribution",
                "STREAMING",
                "Lagoon's stream starts at offset 0, MQSim's at a random address",
            );
        }
        Some(other) => bail!("{}: Address_Distribution = {other}", p.section),
    }
    let aligned = p.flag("Generated_Aligned_Addresses")?.unwrap_or(true);
    let unit = p.num::<u64>("Address_Alignment_Unit")?.unwrap_or(8);
    spec.push(format!(
        "align={}",
        if aligned {
            sectors("Address_Alignment_Unit", unit)?
        } else {
            SECTOR
        }
    ));
    let qd = p.num::<u32>("Average_No_of_Reqs_in_Queue")?;
    let bandwidth = p.num::<f64>("Bandwidth")?;
    match p.take("Synthetic_Generator_Type").as_deref() {
        None | Some("QUEUE_DEPTH") => spec.push(format!("arrival=qd:{}", qd.unwrap_or(1))),
        Some("BANDWIDTH") => {
            let bw = bandwidth.filter(|b| *b > 0.0).ok_or_else(|| {
                anyhow!(
                    "{}: Synthetic_Generator_Type = BANDWIDTH needs Bandwidth (bytes/s) > 0",
                    p.section
                )
            })?;
            // Host_System.cpp: mean gap = 1 s / ((Bandwidth / 512) / Average_Request_Size).
            let gap = 1e9 * (avg * SECTOR) as f64 / bw;
            spec.push(format!("arrival=poisson:{gap}ns"));
        }
        Some(other) => bail!("{}: Synthetic_Generator_Type = {other}", p.section),
    }
    if let Some(v) = p.take("Intensity") {
        nm.add(
            "Intensity",
            &v,
            "MQSim's parser ignores it (it reads Bandwidth)",
        );
    }
    if let Some(ws) = p.num::<f64>("Working_Set_Percentage")? {
        if (1.0..100.0).contains(&ws) {
            nm.add(
                "Working_Set_Percentage",
                &ws.to_string(),
                "add span=<bytes> to the syn: spec: Lagoon's span is in bytes of the flow's share",
            );
        }
    }
    let stop = p.take("Stop_Time");
    let count = p
        .num::<u64>("Total_Requests_To_Generate")?
        .filter(|&n| n > 0);
    if let Some(n) = count {
        spec.push(format!("count={n}"));
    }
    if let Some(v) = stop {
        let why = if count.is_some() {
            "Lagoon ends the flow after Total_Requests_To_Generate requests, not at a time"
        } else {
            "Lagoon's synthetic flows end after count= requests (default 100000), not at a time"
        };
        nm.add("Stop_Time", &v, why);
    }
    if let Some(v) = p.take("Seed") {
        nm.add(
            "Seed",
            &v,
            "Lagoon derives each flow's seed from the run's --seed",
        );
    }
    Ok(format!("syn:{}", spec.join(",")))
}

impl Import {
    /// DIR/<name>.toml and DIR/runs.txt (one `lagoon run` line per scenario).
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let cfg = dir.join(format!("{}.toml", self.name));
        crate::out::write(&cfg, "--out", self.toml.as_bytes())?;
        let runs: String = self.commands(&cfg).into_iter().map(|c| c + "\n").collect();
        let p = dir.join("runs.txt");
        crate::out::write(&p, "--out", runs.as_bytes())?;
        Ok(cfg)
    }

    /// `lagoon run --ssd CFG ...` per scenario, quoted for a POSIX shell.
    pub fn commands(&self, cfg: &Path) -> Vec<String> {
        let q = |s: &str| {
            if s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:=,".contains(c))
            {
                s.to_string()
            } else {
                format!("'{}'", s.replace('\'', "'\\''"))
            }
        };
        self.runs
            .iter()
            .map(|a| {
                let mut c = format!("lagoon run --ssd {}", q(&cfg.display().to_string()));
                for x in a {
                    c.push(' ');
                    c.push_str(&q(x));
                }
                c
            })
            .collect()
    }
}
