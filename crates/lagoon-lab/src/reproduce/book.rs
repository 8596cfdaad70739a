//! What every reproduction shares (issue 31): headline values over seeds judged against the
//! paper's numbers (the numbers, intervals, rule and headlines.json's types are
//! [`super::claims`]; the evidence fields are [`super::evidence`]'s), and the two stages of a
//! reproduction:
//!
//! 1. simulate: runs, then data files only (CSV, runs.json, summary.json), `headlines.json`
//!    with `headline_seeds.csv` (every headline's value per seed), and `figures.json`, the
//!    list of figures and tables with the CSV columns each is drawn from;
//! 2. render ([`render`]): every SVG and `summary.md` from those files alone, so
//!    `lagoon reproduce PAPER --render-only --out DIR` redraws committed results without
//!    simulating and a test can check that they come out byte-identical.
//!
//! No measured number or claim about results is written in code: summary.md holds the
//! headline table from headlines.json, tables copied from CSVs, the figures, and the
//! `--notes` file when one is given.

use super::claims::{
    paper, read_headlines, stat, verdict, Evidence, Headline, HeadlinesFile, Kind, Number,
    PaperFile, PaperValue, Provenance, Stat, Verdict, RULE,
};
use super::folder::{self, shown};
use crate::plot;
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Headline values by seed, collected while a reproduction computes its tables.
#[derive(Clone, Debug, Default)]
pub struct Headlines {
    values: BTreeMap<String, Vec<(u64, f64)>>,
}

impl Headlines {
    /// Headline values by id, as [`read_seed_values`] gives them (for values computed from a
    /// reproduction's files after its runs).
    pub fn from_values(values: BTreeMap<String, Vec<(u64, f64)>>) -> Self {
        Self { values }
    }

    /// `id`'s value in the runs of `seed` (NaN values are kept out).
    pub fn add(&mut self, id: &str, seed: u64, v: f64) {
        let e = self.values.entry(id.to_string()).or_default();
        if v.is_finite() {
            e.push((seed, v));
        }
    }

    /// headlines.json (every headline of the paper's file, measured or not) and
    /// headline_seeds.csv in `dir`.
    pub fn write(&self, dir: &Path, p: &PaperFile, prov: Provenance) -> Result<HeadlinesFile> {
        for id in self.values.keys() {
            let base = id.split_once('@').map_or(id.as_str(), |x| x.0);
            match p.number(base) {
                Some(n) if n.headline => {}
                _ => bail!(
                    "internal: headline value '{id}' is not a headline of {}",
                    p.paper
                ),
            }
        }
        let mut csv = String::from("id,seed,value\n");
        for (id, v) in &self.values {
            for (s, x) in v {
                let _ = writeln!(csv, "{id},{s},{x}");
            }
        }
        super::write(&dir.join("headline_seeds.csv"), &csv)?;
        let file = judge(p, prov, &self.values);
        super::write_json(&dir.join("headlines.json"), &file)?;
        Ok(file)
    }
}

/// headlines.json's content from the per-seed values: every headline number of the paper
/// in the file's order, each followed by its other readings (ids `number@reading`: the same
/// published number measured another way, e.g. dSSD's steady state).
pub fn judge(
    p: &PaperFile,
    prov: Provenance,
    values: &BTreeMap<String, Vec<(u64, f64)>>,
) -> HeadlinesFile {
    let mut headlines = Vec::new();
    for n in p.numbers.iter().filter(|n| n.headline) {
        let readings = values
            .keys()
            .filter_map(|k| k.strip_prefix(&format!("{}@", n.id)))
            .map(|r| (format!("{}@{r}", n.id), Some(r.replace('_', " "))));
        for (id, reading) in std::iter::once((n.id.clone(), None)).chain(readings) {
            let v: Vec<f64> = values
                .get(&id)
                .map(|v| v.iter().map(|x| x.1).collect())
                .unwrap_or_default();
            headlines.push(headline(n, id, reading, &v));
        }
    }
    HeadlinesFile {
        paper: p.paper.clone(),
        title: p.title.clone(),
        provenance: prov,
        rule: RULE.into(),
        headlines,
    }
}

fn headline(n: &Number, id: String, reading: Option<String>, v: &[f64]) -> Headline {
    let s = stat(v);
    let paper = PaperValue {
        value: n.value,
        unit: n.unit.clone(),
        kind: n.kind,
        figure: n.figure.clone(),
        section: n.section.clone(),
        line: n.line,
    };
    let quantity = match reading {
        Some(r) => format!("{} (reading: {r})", n.quantity),
        None => n.quantity.clone(),
    };
    let base = Headline {
        id,
        quantity,
        paper,
        lagoon: None,
        verdict: Verdict::NotMeasured,
        outside_ci: None,
        evidence: Evidence::LagoonOnly,
        evidence_file: None,
        authors: None,
        reason: "this run did not measure it".into(),
    };
    let mut h = if s.n == 0 {
        base
    } else {
        let (ok, why) = verdict(n.kind, n.value, s.mean);
        let [lo, hi] = s.ci95.unwrap_or([s.mean, s.mean]);
        Headline {
            lagoon: Some(s),
            verdict: if ok {
                Verdict::Reproduced
            } else {
                Verdict::NotReproduced
            },
            outside_ci: Some(!(lo..=hi).contains(&n.value)),
            reason: why,
            ..base
        }
    };
    super::evidence::apply(&mut h, n);
    h
}

/// Per-seed values of headline_seeds.csv, by id.
/// Per-seed values of headline_seeds.csv, by id: each (id, seed) once, every value a number.
pub fn read_seed_values(dir: &Path) -> Result<BTreeMap<String, Vec<(u64, f64)>>> {
    let t = Table::read(dir, "headline_seeds.csv")?;
    let mut m: BTreeMap<String, Vec<(u64, f64)>> = BTreeMap::new();
    for r in &t.rows {
        let seed = t.whole(r, "seed")?;
        let v = t.num(r, "value")?;
        if v.is_nan() {
            bail!("{}: no value", t.at(r));
        }
        let e = m.entry(t.cell(r, "id")?.to_string()).or_default();
        if e.iter().any(|x| x.0 == seed) {
            bail!("{}: id and seed given twice", t.at(r));
        }
        e.push((seed, v));
    }
    Ok(m)
}

/// "Venice: 3 of 19 headlines reproduced ..." — the README's line for a reproduction.
pub fn verdict_line(h: &HeadlinesFile, dir: &str) -> String {
    let count = |v: Verdict| h.headlines.iter().filter(|x| x.verdict == v).count();
    let (yes, no, none) = (
        count(Verdict::Reproduced),
        count(Verdict::NotReproduced),
        count(Verdict::NotMeasured),
    );
    let ids = |v: Verdict| {
        h.headlines
            .iter()
            .filter(|x| x.verdict == v)
            .map(|x| format!("`{}`", x.id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = format!(
        "**{}**: {yes} of {} published headline numbers reproduced by the rule in `{dir}/headlines.json` (`{}`, seeds {}, commit {})",
        h.title,
        h.headlines.len(),
        h.provenance.command,
        seeds_text(&h.provenance.seeds),
        short(&h.provenance.commit)
    );
    if yes > 0 {
        let _ = write!(s, "; reproduced: {}", ids(Verdict::Reproduced));
    }
    if no > 0 {
        let _ = write!(s, "; not reproduced: {}", ids(Verdict::NotReproduced));
    }
    if none > 0 {
        let _ = write!(
            s,
            "; not measured by this run: {}",
            ids(Verdict::NotMeasured)
        );
    }
    s.push('.');
    s
}

pub(crate) fn short(commit: &str) -> String {
    match commit.split_once('-') {
        Some((c, rest)) => format!("{}-{rest}", &c[..c.len().min(12)]),
        None => commit[..commit.len().min(12)].to_string(),
    }
}

pub(crate) fn seeds_text(s: &[u64]) -> String {
    match s {
        [] => "none".into(),
        [a] => a.to_string(),
        [a, .., b] if (b - a) as usize + 1 == s.len() => format!("{a}-{b}"),
        _ => s
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

// ---------------------------------------------------------------------------------------
// figures.json: what is drawn, from which columns
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum FigKind {
    /// Grouped bars: `x` the groups, a bar per series.
    Bars,
    /// Bars on a log y axis (from `reference` when given, else the axis bottom).
    BarsLog,
    Lines,
    /// Lines over a log x axis.
    LinesLogX,
    /// A mesh's links and controllers coloured by utilization: CSV columns `kind` (link |
    /// controller), `a`, `b` (routers), `utilization`.
    Heatmap {
        rows: u32,
        cols: u32,
    },
}

/// A value column, with the columns of its 95 % interval.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Y {
    pub col: String,
    /// Series name when several value columns are drawn (default: the column's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hi: Option<String>,
}

impl Y {
    pub fn col(c: &str) -> Self {
        Y {
            col: c.into(),
            ..Default::default()
        }
    }
    pub fn labelled(c: &str, label: &str) -> Self {
        Y {
            col: c.into(),
            label: Some(label.into()),
            ..Default::default()
        }
    }
    /// `c` with its interval in `c_lo` and `c_hi` ([`ci_cols`]).
    pub fn ci(c: &str) -> Self {
        Y {
            col: c.into(),
            lo: Some(format!("{c}_ci95_lo")),
            hi: Some(format!("{c}_ci95_hi")),
            label: None,
        }
    }
}

/// The header names of a value column with its interval: `c, c_ci95_lo, c_ci95_hi, c_n`.
pub fn ci_cols(c: &str) -> [String; 4] {
    [
        c.to_string(),
        format!("{c}_ci95_lo"),
        format!("{c}_ci95_hi"),
        format!("{c}_n"),
    ]
}

/// A [`Stat`] as the four cells of [`ci_cols`] (empty where there is nothing).
pub fn ci_cells(s: &Stat, digits: usize) -> [String; 4] {
    let f = |x: f64| {
        if x.is_finite() {
            format!("{x:.digits$}")
        } else {
            String::new()
        }
    };
    let [lo, hi] = s.ci95.unwrap_or([f64::NAN, f64::NAN]);
    [f(s.mean), f(lo), f(hi), s.n.to_string()]
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fig {
    pub svg: String,
    pub csv: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub kind: FigKind,
    /// Groups (bars) or x values (lines).
    #[serde(default)]
    pub x: String,
    /// Column whose values name the series; None: one series per `ys` entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<String>,
    #[serde(default)]
    pub ys: Vec<Y>,
    /// Only rows where each column has the value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filter: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<f64>,
    /// Bars: labelled horizontal marks (a published value or bound beside Lagoon's bars),
    /// in the drawing's units (after `y_div`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<(f64, String)>,
    /// Bars: the most a value can be (1 for a fraction); intervals are cut there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<f64>,
    /// Divide x and y values (and intervals) by these for the drawing (ns to us, MB/s to GB/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_div: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_div: Option<f64>,
}

impl Fig {
    /// A figure of `kind` drawn from `csv` into `svg`, columns set with the builder methods.
    pub fn new(
        svg: &str,
        csv: &str,
        kind: FigKind,
        title: &str,
        x_label: &str,
        y_label: &str,
    ) -> Self {
        Fig {
            svg: svg.into(),
            csv: csv.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            kind,
            x: String::new(),
            series: None,
            ys: Vec::new(),
            filter: Vec::new(),
            reference: None,
            marks: Vec::new(),
            cap: None,
            x_div: None,
            y_div: None,
        }
    }
    pub fn x(mut self, c: &str) -> Self {
        self.x = c.into();
        self
    }
    pub fn series(mut self, c: &str) -> Self {
        self.series = Some(c.into());
        self
    }
    pub fn y(mut self, y: Y) -> Self {
        self.ys.push(y);
        self
    }
    pub fn filter(mut self, col: &str, value: &str) -> Self {
        self.filter.push((col.into(), value.into()));
        self
    }
    /// Only rows where `col` is not `value` (kept in `filter` as `!value`).
    pub fn filter_not(mut self, col: &str, value: &str) -> Self {
        self.filter.push((col.into(), format!("!{value}")));
        self
    }
    pub fn reference(mut self, r: f64) -> Self {
        self.reference = Some(r);
        self
    }
    /// A labelled horizontal mark at `v` (bars; [`plot::BarStyle::marks`]).
    pub fn mark(mut self, v: f64, label: &str) -> Self {
        self.marks.push((v, label.into()));
        self
    }
    /// Bars: values cannot exceed `v` (a fraction: 1); intervals are cut there.
    pub fn cap(mut self, v: f64) -> Self {
        self.cap = Some(v);
        self
    }
    pub fn x_div(mut self, d: f64) -> Self {
        self.x_div = Some(d);
        self
    }
    pub fn y_div(mut self, d: f64) -> Self {
        self.y_div = Some(d);
        self
    }
}

/// A CSV (or some of its columns and rows) shown in summary.md as a table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub title: String,
    pub csv: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filter: Vec<(String, String)>,
}

/// figures.json.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub paper: String,
    /// How the runs were set up (drives, workloads, replay, request counts): what was run,
    /// not what came out.
    pub method: Vec<String>,
    pub tables: Vec<TableSpec>,
    pub figures: Vec<Fig>,
}

impl Manifest {
    pub fn new(paper: &str) -> Self {
        Manifest {
            paper: paper.into(),
            ..Default::default()
        }
    }
    pub fn method(&mut self, s: impl Into<String>) {
        self.method.push(s.into());
    }
    pub fn fig(&mut self, f: Fig) {
        self.figures.push(f);
    }
    pub fn table(&mut self, title: &str, csv: &str, columns: &[&str]) {
        self.tables.push(TableSpec {
            title: title.into(),
            csv: csv.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            filter: Vec::new(),
        });
    }
    pub fn write(&self, dir: &Path) -> Result<()> {
        super::write_json(&dir.join("figures.json"), self)
    }
    /// figures.json of `dir`, checked ([`Manifest::check`]).
    pub fn read(dir: &Path) -> Result<Self> {
        folder::read_checked(dir, "figures.json", Manifest::check)
    }

    /// What a figures.json must hold to be drawn from (issue 42): a paper Lagoon knows; at
    /// most [`MOST_FIGURES`] figures and tables; every SVG and CSV a plain `.svg` / `.csv`
    /// name inside the folder ([`folder::path`]), each SVG drawn once; finite numbers
    /// (reference, marks, cap; divisors above 0); a heat map of 1 to 65,536 routers.
    pub fn check(&self) -> Result<()> {
        super::check_paper(&self.paper)?;
        if self.figures.len() > MOST_FIGURES || self.tables.len() > MOST_FIGURES {
            bail!(
                "{} figures and {} tables; a reproduction has at most {MOST_FIGURES} of each",
                self.figures.len(),
                self.tables.len()
            );
        }
        let named = |name: &str, ext: &str| -> Result<()> {
            folder::check_name(name)?;
            if !name.ends_with(ext) {
                bail!("{}: not a {ext} file", shown(name));
            }
            Ok(())
        };
        let mut svgs = std::collections::BTreeSet::new();
        for (i, f) in self.figures.iter().enumerate() {
            let at = format!("figures[{i}]");
            named(&f.svg, ".svg").map_err(|e| anyhow!("{at}.svg {e}"))?;
            named(&f.csv, ".csv").map_err(|e| anyhow!("{at}.csv {e}"))?;
            if !svgs.insert(f.svg.as_str()) {
                bail!("{at}.svg {}: drawn twice", shown(&f.svg));
            }
            let finite = f
                .reference
                .iter()
                .chain(&f.cap)
                .chain(f.marks.iter().map(|m| &m.0))
                .all(|v| v.is_finite());
            let divisor = |d: Option<f64>| d.is_none_or(|d| d.is_finite() && d > 0.0);
            if !finite || !divisor(f.x_div) || !divisor(f.y_div) {
                bail!("{at} ({}): a reference, mark or cap that is not a finite number, or a divisor not above 0", shown(&f.svg));
            }
            if let FigKind::Heatmap { rows, cols } = f.kind {
                if rows == 0 || cols == 0 || rows as u64 * cols as u64 > 65_536 {
                    bail!(
                        "{at} ({}): a heat map of {rows} x {cols} routers; 1 to 65,536",
                        shown(&f.svg)
                    );
                }
            }
        }
        for (i, t) in self.tables.iter().enumerate() {
            named(&t.csv, ".csv").map_err(|e| anyhow!("tables[{i}].csv {e}"))?;
        }
        Ok(())
    }
}

/// The most figures (and tables) a figures.json may list (the reproductions have up to 40).
pub const MOST_FIGURES: usize = 1024;

// ---------------------------------------------------------------------------------------
// Reading CSVs back
// ---------------------------------------------------------------------------------------

/// A CSV file as text cells.
pub struct Table {
    pub name: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Each row's line in the file (for errors).
    lines: Vec<u64>,
}

impl Table {
    /// `dir/name` (at most [`folder::MAX_CSV_BYTES`] and [`folder::MAX_CSV_CELLS`] cells),
    /// checked: no cell is a number that is not finite (`NaN`, `inf`, `1e999`), and where the
    /// header has a value column with its interval ([`ci_cols`]) every row has both ends or
    /// neither, the low end at most the high, and the value inside them.
    pub fn read(dir: &Path, name: &str) -> Result<Self> {
        let text = folder::read(dir, name, folder::MAX_CSV_BYTES)?;
        let p = dir.join(name);
        let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let head: Vec<String> = r
            .headers()
            .map_err(|e| anyhow!("{}: {}", p.display(), folder::cut(&e.to_string())))?
            .iter()
            .map(String::from)
            .collect();
        let (mut rows, mut lines) = (Vec::new(), Vec::new());
        let mut cells = head.len();
        for rec in r.records() {
            let rec =
                rec.map_err(|e| anyhow!("{}: {}", p.display(), folder::cut(&e.to_string())))?;
            cells += rec.len();
            if cells > folder::MAX_CSV_CELLS {
                bail!(
                    "{}: more than the {} cells a results CSV may have",
                    p.display(),
                    folder::MAX_CSV_CELLS
                );
            }
            lines.push(rec.position().map_or(0, |q| q.line()));
            rows.push(rec.iter().map(String::from).collect::<Vec<String>>());
        }
        let t = Table {
            name: name.to_string(),
            head,
            rows,
            lines,
        };
        t.check()?;
        Ok(t)
    }

    /// [`Table::read`]'s checks of the cells.
    fn check(&self) -> Result<()> {
        for r in &self.rows {
            if let Some((i, c)) = r
                .iter()
                .enumerate()
                .find(|(_, c)| c.trim().parse::<f64>().is_ok_and(|v| !v.is_finite()))
            {
                bail!(
                    "{}: {} = {}: not a finite number (a missing value is an empty cell)",
                    self.at(r),
                    shown(self.head.get(i).map_or("?", String::as_str)),
                    shown(c)
                );
            }
        }
        for c in &self.head {
            let [_, lo, hi, _] = ci_cols(c);
            if self.col(&lo).is_err() || self.col(&hi).is_err() {
                continue;
            }
            for r in &self.rows {
                self.interval(r, c, &lo, &hi)?;
            }
        }
        Ok(())
    }

    /// The value of column `c` in `row` with its interval from columns `lo` and `hi`: both ends
    /// or neither (NaN), the low end at most the high and the value (when there is one)
    /// between them.
    fn interval(&self, row: &[String], c: &str, lo: &str, hi: &str) -> Result<(f64, f64, f64)> {
        let (v, l, h) = (self.num(row, c)?, self.num(row, lo)?, self.num(row, hi)?);
        let fine = match (l.is_nan(), h.is_nan()) {
            (true, true) => true,
            (false, false) => l <= h && l <= v && v <= h,
            _ => false,
        };
        if !fine {
            bail!(
                "{}: {} = {v} outside its 95 % interval [{l}, {h}] (or half an interval)",
                self.at(row),
                shown(c)
            );
        }
        Ok((v, l, h))
    }

    /// Where `row` is, for an error: the file and line.
    pub fn at(&self, row: &[String]) -> String {
        let i = self
            .rows
            .iter()
            .position(|r| std::ptr::eq(r.as_slice(), row));
        match i.and_then(|i| self.lines.get(i)) {
            Some(l) => format!("{} line {l}", self.name),
            None => self.name.clone(),
        }
    }

    pub fn col(&self, c: &str) -> Result<usize> {
        self.head
            .iter()
            .position(|h| h == c)
            .ok_or_else(|| anyhow!("{}: no column {}", self.name, shown(c)))
    }

    pub fn cell<'a>(&self, row: &'a [String], c: &str) -> Result<&'a str> {
        Ok(row.get(self.col(c)?).map_or("", String::as_str))
    }

    /// A cell as a number: an empty cell is NaN (missing, drawn as "n/a"); anything else
    /// that is not a number is an error naming the file, line and column.
    pub fn num(&self, row: &[String], c: &str) -> Result<f64> {
        let cell = self.cell(row, c)?.trim();
        if cell.is_empty() {
            return Ok(f64::NAN);
        }
        match cell.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => bail!(
                "{}: {} = {}: not a finite number",
                self.at(row),
                shown(c),
                shown(cell)
            ),
        }
    }

    /// A cell as a whole number (a seed, a router).
    pub fn whole(&self, row: &[String], c: &str) -> Result<u64> {
        let cell = self.cell(row, c)?.trim();
        cell.parse().map_err(|_| {
            anyhow!(
                "{}: {} = {}: not a whole number",
                self.at(row),
                shown(c),
                shown(cell)
            )
        })
    }

    /// Whether `row` passes every filter: `(column, value)` keeps equal cells,
    /// `(column, "!value")` the others.
    fn keep(&self, row: &[String], filter: &[(String, String)]) -> Result<bool> {
        for (c, v) in filter {
            let cell = self.cell(row, c)?;
            let pass = match v.strip_prefix('!') {
                Some(not) => cell != not,
                None => cell == v,
            };
            if !pass {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Distinct values in first-appearance order.
fn distinct<'a>(it: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for x in it {
        if !v.iter().any(|y| y == x) {
            v.push(x.to_string());
        }
    }
    v
}

// ---------------------------------------------------------------------------------------
// Stage 2: figures and summary.md from the files
// ---------------------------------------------------------------------------------------

/// The most a figure's quantity can be, when its figure does not say ([`Fig::cap`]): from
/// the unit its y label names, 1 for a fraction, 100 for a share in % ("% of requests").
fn cap_of(f: &Fig) -> Option<f64> {
    f.cap.or(if f.y_label.contains("fraction") {
        Some(1.0)
    } else if f.y_label.starts_with("% ") {
        Some(100.0)
    } else {
        None
    })
}

/// Draw one figure from its CSV.
pub fn draw(dir: &Path, f: &Fig) -> Result<String> {
    draw_from(&Table::read(dir, &f.csv)?, f)
}

/// Draw figure `f` from its CSV `t`, checking what it draws: every value a number or empty
/// (missing), inside its interval and at most the quantity's [`cap_of`]; a bar once per
/// series and group; a heat map's rows links or controllers of its mesh, busy 0 to 100 %.
fn draw_from(t: &Table, f: &Fig) -> Result<String> {
    let rows: Vec<&Vec<String>> = t
        .rows
        .iter()
        .filter(|r| t.keep(r, &f.filter).unwrap_or(false))
        .collect();
    for (c, _) in &f.filter {
        t.col(c)?;
    }
    let (xd, yd) = (f.x_div.unwrap_or(1.0), f.y_div.unwrap_or(1.0));
    if let FigKind::Heatmap { rows: nr, cols: nc } = f.kind {
        let (mut links, mut util, mut fcs) = (Vec::new(), Vec::new(), Vec::new());
        let mut seen = std::collections::BTreeSet::new();
        let routers = nr as u64 * nc as u64;
        for r in &rows {
            let router = |c: &str| -> Result<u32> {
                let v = t.whole(r, c)?;
                if v >= routers {
                    bail!(
                        "{}: {c} = {v}: not a router of the {nr} x {nc} mesh",
                        t.at(r)
                    );
                }
                Ok(v as u32)
            };
            let (kind, a, u) = (t.cell(r, "kind")?, router("a")?, t.num(r, "utilization")?);
            if !(0.0..=1.0).contains(&u) {
                bail!(
                    "{}: utilization {u}: not a busy fraction in [0, 1]",
                    t.at(r)
                );
            }
            let key = match kind {
                "link" => {
                    let b = router("b")?;
                    links.push((a, b));
                    util.push(u);
                    (0, a, b)
                }
                "controller" => {
                    fcs.push((a, u));
                    (1, a, 0)
                }
                other => bail!(
                    "{}: kind {}: neither link nor controller",
                    t.at(r),
                    shown(other)
                ),
            };
            if !seen.insert(key) {
                bail!("{}: {kind} given twice", t.at(r));
            }
        }
        return Ok(plot::mesh_heatmap(&f.title, nr, nc, &links, &util, &fcs));
    }
    // Series: (name, value column, rows of that series).
    let mut series: Vec<(String, &Y, Vec<&Vec<String>>)> = Vec::new();
    match &f.series {
        Some(sc) => {
            t.col(sc)?;
            let names = distinct(rows.iter().map(|r| t.cell(r, sc).unwrap_or("")));
            for n in names {
                let rs: Vec<&Vec<String>> = rows
                    .iter()
                    .copied()
                    .filter(|r| t.cell(r, sc).unwrap_or("") == n)
                    .collect();
                for y in &f.ys {
                    let name = if f.ys.len() > 1 {
                        format!("{n} {}", y.label.as_deref().unwrap_or(&y.col))
                    } else {
                        n.clone()
                    };
                    series.push((name, y, rs.clone()));
                }
            }
        }
        None => {
            for y in &f.ys {
                series.push((
                    y.label.clone().unwrap_or_else(|| y.col.clone()),
                    y,
                    rows.clone(),
                ));
            }
        }
    }
    let has_ci = f.ys.iter().any(|y| y.lo.is_some());
    let cap = cap_of(f);
    // A value and its interval, in the drawing's units.
    let value = |r: &Vec<String>, y: &Y| -> Result<(f64, (f64, f64))> {
        let (v, l, h) = match (&y.lo, &y.hi) {
            (Some(lo), Some(hi)) => t.interval(r, &y.col, lo, hi)?,
            (None, None) => (t.num(r, &y.col)?, f64::NAN, f64::NAN),
            _ => bail!("{}: half an interval", shown(&y.col)),
        };
        let (v, l, h) = (v / yd, l / yd, h / yd);
        if let Some(c) = cap.filter(|&c| v > c) {
            bail!(
                "{}: {} = {v}: more than {c}, the most the quantity ({}) can be",
                t.at(r),
                shown(&y.col),
                f.y_label
            );
        }
        Ok((v, (l, h)))
    };
    match f.kind {
        FigKind::Bars | FigKind::BarsLog => {
            t.col(&f.x)?;
            let groups = distinct(rows.iter().map(|r| t.cell(r, &f.x).unwrap_or("")));
            let mut vals = Vec::new();
            let mut cis = Vec::new();
            for (name, y, rs) in &series {
                let mut v = vec![f64::NAN; groups.len()];
                let mut c = vec![(f64::NAN, f64::NAN); groups.len()];
                let mut set = vec![false; groups.len()];
                for r in rs {
                    let g = t.cell(r, &f.x)?;
                    let i = groups
                        .iter()
                        .position(|x| x == g)
                        .expect("a group of the rows");
                    if std::mem::replace(&mut set[i], true) {
                        bail!(
                            "{}: a second row for {} in group {}",
                            t.at(r),
                            shown(name),
                            shown(g)
                        );
                    }
                    (v[i], c[i]) = value(r, y)?;
                }
                vals.push((name.clone(), v));
                cis.push(c);
            }
            let st = plot::BarStyle {
                reference: f.reference,
                log_y: f.kind == FigKind::BarsLog,
                intervals: has_ci.then_some(cis),
                marks: f.marks.clone(),
                cap,
            };
            Ok(plot::bars_with(
                &st, &f.title, &f.x_label, &f.y_label, &groups, &vals,
            ))
        }
        FigKind::Lines | FigKind::LinesLogX => {
            let mut lines = Vec::new();
            let mut cis = Vec::new();
            for (name, y, rs) in &series {
                let mut pts = Vec::new();
                let mut c = Vec::new();
                for r in rs {
                    let (v, ci) = value(r, y)?;
                    pts.push((t.num(r, &f.x)? / xd, v));
                    c.push(ci);
                }
                lines.push((name.clone(), pts));
                cis.push(c);
            }
            let st = plot::LineStyle {
                intervals: has_ci.then_some(cis.as_slice()),
                log_x: f.kind == FigKind::LinesLogX,
                cap,
                ..Default::default()
            };
            Ok(plot::lines_with(
                &st, &f.title, &f.x_label, &f.y_label, &lines,
            ))
        }
        FigKind::Heatmap { .. } => unreachable!("drawn above"),
    }
}

/// A CSV table (some columns, some rows) as Markdown, cells as written.
fn md_table(t: &Table, spec: &TableSpec) -> Result<String> {
    let cols: Vec<String> = if spec.columns.is_empty() {
        t.head.clone()
    } else {
        spec.columns.clone()
    };
    let idx = cols.iter().map(|c| t.col(c)).collect::<Result<Vec<_>>>()?;
    let mut s = format!("| {} |\n|{}\n", cols.join(" | "), "---|".repeat(cols.len()));
    for r in &t.rows {
        if !t.keep(r, &spec.filter)? {
            continue;
        }
        let cells: Vec<&str> = idx
            .iter()
            .map(|&i| r.get(i).map_or("", String::as_str))
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    Ok(s)
}

pub(crate) fn fmt_value(v: f64, unit: &str, kind: Kind) -> String {
    match (kind, unit) {
        (Kind::Rate, _) | (_, "%") => format!("{:.2} %", 100.0 * v),
        _ if v.abs() >= 100.0 => format!("{v:.1}"),
        _ => format!("{v:.3}"),
    }
}

/// summary.md from figures.json, headlines.json, the CSVs (by name) and the notes.
fn summary_md(
    m: &Manifest,
    h: &HeadlinesFile,
    tables: &BTreeMap<String, Table>,
    notes: Option<&str>,
) -> Result<String> {
    let p = &h.provenance;
    let mut s = format!("# {} — reproduced by Lagoon\n\n", h.title);
    let _ = writeln!(
        s,
        "Rendered from the files beside it (figures.json, headlines.json and the CSVs; `lagoon reproduce {} --render-only --out DIR` redraws it and every figure); every number below is in one of them.\n",
        m.paper
    );
    let _ = writeln!(s, "## Provenance\n");
    let _ = writeln!(s, "- command: `{}`", p.command);
    let _ = writeln!(s, "- lagoon {}, commit {}", p.lagoon, p.commit);
    let _ = writeln!(
        s,
        "- {} runs in {:.0} s wall on {}",
        p.runs, p.wall_s, p.executor
    );
    let _ = writeln!(
        s,
        "- seeds {} for the headline cells (every other run: seed {}); a seed varies {}",
        seeds_text(&p.seeds),
        p.seeds.first().copied().unwrap_or(1),
        p.seed_varies
    );
    let _ = writeln!(
        s,
        "- resolved configurations (FNV-1a 64 of the configuration's JSON):"
    );
    for (k, v) in &p.configs {
        let _ = writeln!(s, "  - `{k}`: `{v}`");
    }
    let _ = writeln!(s, "\n## Method\n");
    for l in &m.method {
        let _ = writeln!(s, "- {l}");
    }
    let _ = writeln!(s, "\n## Headlines (headlines.json)\n");
    let _ = writeln!(s, "{}\n", verdict_line(h, "."));
    let _ = writeln!(s, "Rule: {}\n", h.rule);
    let _ = writeln!(
        s,
        "| id | quantity | paper (where) | Lagoon mean | 95 % interval | seeds | verdict | paper outside interval | evidence | reason |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for x in &h.headlines {
        let pv = &x.paper;
        let (mean, ci, n) = match &x.lagoon {
            Some(st) => (
                fmt_value(st.mean, &pv.unit, pv.kind),
                st.ci95.map_or("-".into(), |[a, b]| {
                    format!(
                        "{} to {}",
                        fmt_value(a, &pv.unit, pv.kind),
                        fmt_value(b, &pv.unit, pv.kind)
                    )
                }),
                st.n.to_string(),
            ),
            None => ("-".into(), "-".into(), "0".into()),
        };
        let verdict = x.verdict.words();
        let ev = x.evidence.words();
        let ev = match &x.evidence_file {
            Some(f) => format!("{ev} ({f})"),
            None => ev.to_string(),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {}{} ({}, {}, line {}) | {mean} | {ci} | {n} | {verdict} | {} | {ev} | {} |",
            x.id,
            x.quantity,
            fmt_value(pv.value, &pv.unit, pv.kind),
            match (pv.kind, pv.unit.as_str()) {
                (Kind::Rate, _) => String::new(),
                (_, u) => format!(" {u}"),
            },
            pv.figure,
            pv.section,
            pv.line,
            x.outside_ci.map_or("-", |b| if b { "yes" } else { "no" }),
            x.reason
        );
    }
    for t in &m.tables {
        let _ = writeln!(s, "\n## {} (`{}`)\n", t.title, t.csv);
        s.push_str(&md_table(&tables[&t.csv], t)?);
    }
    let _ = writeln!(s, "\n## Figures\n");
    for f in &m.figures {
        let _ = writeln!(
            s,
            "### {}\n\n![{}]({})\n\nData: `{}`.\n",
            f.title, f.title, f.svg, f.csv
        );
    }
    let _ = writeln!(
        s,
        "Every run: `runs.csv` / `runs.json` (one row per run, with its seed and configuration hash); headline values per seed: `headline_seeds.csv`."
    );
    if let Some(n) = notes {
        let _ = writeln!(s, "\n## Notes (written by hand, given with --notes)\n");
        s.push_str(n);
        if !n.ends_with('\n') {
            s.push('\n');
        }
    }
    Ok(s)
}

/// Stage 2 in `dir`: every figure of figures.json and summary.md, from the folder's files
/// alone, each read once and checked (figures.json, headlines.json against
/// headline_seeds.csv, every CSV) before anything is written: a bad file is named with its
/// entry and nothing is drawn from the folder. The summary ends with the folder's notes
/// (notes.md, written by hand); `notes` given (`--notes FILE`) replaces them and is kept as
/// notes.md, so a later redraw keeps it too.
pub fn render(dir: &Path, notes: Option<&str>) -> Result<()> {
    let m = Manifest::read(dir)?;
    let h = read_headlines(dir)?;
    let errs = check_numbers(dir)?;
    if let Some(e) = errs.first() {
        bail!(
            "{e}{}",
            match errs.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            }
        );
    }
    let kept = match notes {
        Some(_) => None,
        None => folder::notes(dir, super::MAX_NOTES_BYTES)?,
    };
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    for csv in m
        .figures
        .iter()
        .map(|f| &f.csv)
        .chain(m.tables.iter().map(|t| &t.csv))
    {
        if !tables.contains_key(csv) {
            let t = Table::read(dir, csv)
                .with_context(|| format!("figures.json names {}", shown(csv)))?;
            tables.insert(csv.clone(), t);
        }
    }
    let mut drawn = Vec::new();
    for f in &m.figures {
        let svg = draw_from(&tables[&f.csv], f)
            .with_context(|| format!("figures.json: figure {}", shown(&f.svg)))?;
        drawn.push((f.svg.as_str(), svg));
    }
    let md = summary_md(&m, &h, &tables, notes.or(kept.as_deref()))?;
    // Every name written checked before the first write (an SVG that is a link to outside).
    for name in drawn
        .iter()
        .map(|d| d.0)
        .chain(["summary.md", folder::NOTES])
    {
        folder::path(dir, name)?;
    }
    for (name, svg) in drawn {
        folder::write(dir, name, &svg)?;
    }
    folder::write(dir, "summary.md", &md)?;
    match notes {
        Some(n) => folder::write(dir, folder::NOTES, n),
        None => Ok(()),
    }
}

/// The per-seed values and headlines.json of `dir` agree: every headline's mean, interval
/// and verdict recomputed from headline_seeds.csv and the paper's file, and its evidence is
/// the data file's ([`super::evidence::check`]). Returns the errors.
pub fn check_headlines(dir: &Path) -> Result<Vec<String>> {
    let mut errs = check_numbers(dir)?;
    errs.extend(super::evidence::check(dir)?);
    Ok(errs)
}

/// `--refresh-evidence`: rewrite only the evidence fields of `dir/headlines.json` from the
/// paper's data file ([`super::evidence::Refresh`]), once the file reads back byte for byte
/// and its numbers agree with headline_seeds.csv. Returns the ids whose evidence changed.
pub fn refresh_evidence(dir: &Path) -> Result<Vec<String>> {
    let r = super::evidence::Refresh::read(dir)?;
    let errs = check_numbers(dir)?;
    if !errs.is_empty() {
        bail!("--refresh-evidence: {}", errs.join("; "));
    }
    r.write()
}

/// The numbers half of [`check_headlines`]: means, intervals and verdicts.
pub fn check_numbers(dir: &Path) -> Result<Vec<String>> {
    let h = read_headlines(dir)?;
    let p = paper(&h.paper)?;
    let values = read_seed_values(dir)?;
    let again = judge(&p, h.provenance.clone(), &values);
    let mut errs = Vec::new();
    if again.headlines.len() != h.headlines.len() {
        errs.push(format!(
            "{}: {} headlines, the paper's file has {}",
            dir.display(),
            h.headlines.len(),
            again.headlines.len()
        ));
    }
    for (a, b) in h.headlines.iter().zip(&again.headlines) {
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(1.0);
        let same = a.id == b.id
            && a.verdict == b.verdict
            && a.paper == b.paper
            && match (&a.lagoon, &b.lagoon) {
                (Some(x), Some(y)) => {
                    x.n == y.n
                        && close(x.mean, y.mean)
                        && match (x.ci95, y.ci95) {
                            (Some([a1, a2]), Some([b1, b2])) => close(a1, b1) && close(a2, b2),
                            (None, None) => true,
                            _ => false,
                        }
                }
                (None, None) => true,
                _ => false,
            };
        if !same {
            errs.push(format!(
                "{}: headline {} disagrees with headline_seeds.csv or the paper's file",
                dir.display(),
                a.id
            ));
        }
    }
    Ok(errs)
}

/// Where a reproduction writes while it runs: a sibling of `out` that becomes `out` only
/// when everything is written ([`finish_dir`]), so an interrupted run leaves nothing that
/// looks complete and a rerun never mixes old and new files.
pub fn work_dir(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or("results".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Whether `dir` holds a reproduction's output (or nothing): only such a directory may be
/// replaced by a new run.
pub fn replaceable(dir: &Path) -> Result<bool> {
    if !dir.exists() {
        return Ok(true);
    }
    if !dir.is_dir() {
        return Ok(false);
    }
    let empty = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .next()
        .is_none();
    Ok(empty
        || dir.join("summary.md").exists()
            && (dir.join("runs.csv").exists() || dir.join("runs.json").exists())
        || dir.join("figures.json").exists())
}

/// Move the finished `work` directory to `out`, replacing a previous reproduction there.
pub fn finish_dir(work: &Path, out: &Path) -> Result<()> {
    if out.exists() {
        let old = work.with_extension("old");
        std::fs::rename(out, &old)
            .with_context(|| format!("cannot move the previous {} aside", out.display()))?;
        std::fs::rename(work, out)
            .with_context(|| format!("cannot move the results to {}", out.display()))?;
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("cannot remove the previous results ({})", old.display()))?;
    } else {
        std::fs::rename(work, out)
            .with_context(|| format!("cannot move the results to {}", out.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_cell_is_drawn_as_missing_not_zero() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("d.csv"),
            "g,s,v,v_ci95_lo,v_ci95_hi\na,x,1.5,1.4,1.6\na,y,,,\nb,x,0,,\nb,y,2,,\n",
        )
        .unwrap();
        let f = Fig::new("d.svg", "d.csv", FigKind::Bars, "t", "g", "v")
            .x("g")
            .series("s")
            .y(Y::ci("v"));
        let svg = draw(dir.path(), &f).unwrap();
        assert_eq!(svg.matches(">n/a</text>").count(), 1, "{svg}");
        // three drawn bars (a zero is a bar of its own), one interval
        assert_eq!(svg.matches("<rect x=").count() - 2, 3, "{svg}");
        assert_eq!(svg.matches(r#"class="ci""#).count(), 1);
    }
}
