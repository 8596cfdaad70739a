//! What backs a headline's verdict beyond Lagoon itself (issue 34): a paper's data file names,
//! per headline, the evidence's kind ([`Evidence`]), the file in the repository that holds its
//! runs (commands, configurations, numbers, how to repeat them) and, for the authors'
//! simulator, that simulator's own value of the quantity as the file states it
//! ([`AuthorsValue`]). Those fields are data ([`super::claims`]); this module fills a
//! headline's evidence fields from them.
//!
//! The verdict stays the project's rule ([`claims::verdict`]) on Lagoon's value. The evidence
//! adds, in `authors` and in words at the end of the reason, whether the authors' simulator's
//! value agrees by the same rule with the paper's and with Lagoon's (the authors' value taken
//! as the reference Lagoon is judged against).
//!
//! Evidence is written into headlines.json when a reproduction runs; for results already
//! committed, `lagoon reproduce PAPER --refresh-evidence --out DIR`
//! (`book::refresh_evidence`, through [`Refresh`]) rewrites only the evidence fields from the
//! data file, without simulating.

use super::claims::{self, AuthorsCheck, Evidence, Headline, Kind, Number, MARK};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::path::Path;

/// A value as the reason states it: a ratio by its effect, a rate by its complement; as
/// written when it has at most three decimals (a published or quoted value), else to three.
fn measure(kind: Kind, v: f64, unit: &str) -> String {
    let shown = if (v * 1000.0).round() / 1000.0 == v {
        format!("{v}")
    } else {
        format!("{v:.3}")
    };
    match kind {
        Kind::Ratio => format!("{shown} (effect {:+.1} %)", 100.0 * (v - 1.0)),
        Kind::Rate => format!("{shown} (complement {:.2} %)", 100.0 * (1.0 - v)),
        Kind::Absolute => format!("{shown} {unit}"),
    }
}

/// The authors' value of `n` judged against the paper's and (when measured) Lagoon's mean
/// against it, and the sentence the reason ends with.
pub fn authors_check(n: &Number, lagoon: Option<f64>) -> Option<(AuthorsCheck, String)> {
    let a = n.authors.as_ref()?;
    let file = n.evidence_file.as_deref().unwrap_or("?");
    let with_paper = claims::verdict(n.kind, n.value, a.value).0;
    let with_lagoon = lagoon.map(|l| claims::verdict(n.kind, a.value, l).0);
    let which = match (with_lagoon, with_paper) {
        (Some(true), false) => {
            "by the same rule it agrees with Lagoon's value and not with the paper's: the authors' own simulator does not give the paper's number either"
        }
        (Some(true), true) => "by the same rule it agrees with both Lagoon's value and the paper's",
        (Some(false), true) => "by the same rule it agrees with the paper's value, not with Lagoon's",
        (Some(false), false) => {
            "by the same rule it agrees with neither Lagoon's value nor the paper's"
        }
        (None, true) => "by the same rule it agrees with the paper's value",
        (None, false) => "by the same rule it does not agree with the paper's value",
    };
    // The paper's and Lagoon's values are in the verdict's reason before this sentence.
    let sentence = format!(
        "{} ({}; {}), gives {}: {}",
        a.simulator,
        file,
        a.setting,
        measure(n.kind, a.value, &n.unit),
        which
    );
    Some((
        AuthorsCheck {
            simulator: a.simulator.clone(),
            value: a.value,
            setting: a.setting.clone(),
            agrees_with_paper: with_paper,
            agrees_with_lagoon: with_lagoon,
        },
        sentence,
    ))
}

/// A headline's evidence fields: evidence, evidence_file, authors, and the reason (the
/// verdict's reason, then the evidence's sentence).
#[derive(Clone, Debug, PartialEq)]
struct Fields {
    evidence: Evidence,
    evidence_file: Option<String>,
    authors: Option<AuthorsCheck>,
    reason: String,
}

/// The evidence fields as `n` (the headline's number in the data file) gives them now, for a
/// headline whose Lagoon mean is `lagoon` and whose reason is `reason` (any evidence sentence
/// at its end is replaced).
fn fields(n: &Number, lagoon: Option<f64>, reason: &str) -> Fields {
    let base = reason.split_once(MARK).map_or(reason, |x| x.0);
    let (authors, reason) = match authors_check(n, lagoon) {
        Some((check, sentence)) => (Some(check), format!("{base}{MARK}{sentence}")),
        None => (None, base.to_string()),
    };
    Fields {
        evidence: n.evidence,
        evidence_file: n.evidence_file.clone(),
        authors,
        reason,
    }
}

/// `h`'s evidence fields as `n` (its number in the data file) gives them now.
pub fn apply(h: &mut Headline, n: &Number) {
    let f = fields(n, h.lagoon.as_ref().map(|s| s.mean), &h.reason);
    h.evidence = f.evidence;
    h.evidence_file = f.evidence_file;
    h.authors = f.authors;
    h.reason = f.reason;
}

/// headlines.json as [`refresh`] rewrites it: the evidence fields parsed, everything else
/// kept as the file's own text (numbers read and written again could move in their last
/// digit), in [`HeadlinesFile`]'s order.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    paper: String,
    title: String,
    provenance: Box<RawValue>,
    rule: String,
    headlines: Vec<RawHeadline>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeadline {
    id: String,
    quantity: String,
    paper: Box<RawValue>,
    lagoon: Box<RawValue>,
    verdict: Box<RawValue>,
    outside_ci: Box<RawValue>,
    evidence: Evidence,
    evidence_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    authors: Option<AuthorsCheck>,
    reason: String,
}

/// `--refresh-evidence`, in two halves around the numbers' check (`book::refresh_evidence`):
/// [`Refresh::read`] takes `dir/headlines.json` only if it reads back byte for byte, and
/// [`Refresh::write`] rewrites only its evidence fields from the paper's data file; every
/// other byte stays as written.
pub struct Refresh {
    path: std::path::PathBuf,
    file: RawFile,
}

impl Refresh {
    pub fn read(dir: &Path) -> Result<Refresh> {
        let path = super::folder::path(dir, "headlines.json")?;
        let text = super::folder::read(dir, "headlines.json", super::folder::MAX_JSON_BYTES)?;
        let h: RawFile = serde_json::from_str(&text)
            .map_err(|e| anyhow!("{}: {}", path.display(), super::folder::cut(&e.to_string())))?;
        // Only the evidence may change: the file must come back as it was when written again.
        let again = serde_json::to_string_pretty(&h)?;
        if again != text {
            let (i, (was, now)) = text
                .lines()
                .zip(again.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((text.lines().count().min(again.lines().count()), ("", "")));
            bail!(
                "--refresh-evidence: {} does not read back byte for byte (edited by hand, or written by another version; line {}: {} reads back as {}); re-run the reproduction",
                path.display(),
                i + 1,
                super::folder::shown(was.trim()),
                super::folder::shown(now.trim())
            );
        }
        Ok(Refresh { path, file: h })
    }

    /// Rewrites the evidence fields; returns the ids whose evidence changed.
    pub fn write(self) -> Result<Vec<String>> {
        let (path, mut h) = (self.path, self.file);
        let p = claims::paper(&h.paper)?;
        let mut changed = Vec::new();
        for x in h.headlines.iter_mut() {
            let base = x.id.split_once('@').map_or(x.id.as_str(), |s| s.0);
            let n = p.number(base).with_context(|| {
                format!("{}: headline {} not in the data file", path.display(), x.id)
            })?;
            let lagoon: Option<claims::Stat> = serde_json::from_str(x.lagoon.get())
                .with_context(|| format!("{}: {}: lagoon", path.display(), x.id))?;
            let was = Fields {
                evidence: x.evidence,
                evidence_file: x.evidence_file.clone(),
                authors: x.authors.clone(),
                reason: x.reason.clone(),
            };
            let now = fields(n, lagoon.map(|s| s.mean), &x.reason);
            if now != was {
                changed.push(x.id.clone());
                x.evidence = now.evidence;
                x.evidence_file = now.evidence_file;
                x.authors = now.authors;
                x.reason = now.reason;
            }
        }
        super::write(&path, &serde_json::to_string_pretty(&h)?)?;
        Ok(changed)
    }
}

/// Errors where `dir/headlines.json`'s evidence is not what the data file gives now (a
/// committed result whose data file changed needs `--refresh-evidence`).
pub fn check(dir: &Path) -> Result<Vec<String>> {
    let h = claims::read_headlines(dir)?;
    let p = claims::paper(&h.paper)?;
    let mut errs = Vec::new();
    for x in &h.headlines {
        let base = x.id.split_once('@').map_or(x.id.as_str(), |s| s.0);
        let Some(n) = p.number(base) else {
            errs.push(format!("{}: {} not in the data file", dir.display(), x.id));
            continue;
        };
        let mut again = x.clone();
        apply(&mut again, n);
        if again != *x {
            errs.push(format!(
                "{}: the evidence of {} is not the data file's (lagoon reproduce {} --refresh-evidence --out DIR)",
                dir.display(),
                x.id,
                h.paper
            ));
        }
    }
    Ok(errs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::claims::{AuthorsValue, PAPERS};

    /// The repository's root (the data files' evidence paths are relative to it).
    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// Every evidence file a data file names is in the repository, and every authors' value is
    /// in its file: the quote is there and the value is written in the quote.
    #[test]
    fn evidence_files_exist_and_hold_the_authors_values() {
        let mut values = 0;
        for (name, _) in PAPERS {
            let p = claims::paper(name).unwrap();
            for n in &p.numbers {
                let Some(f) = &n.evidence_file else { continue };
                let text = std::fs::read_to_string(root().join(f))
                    .unwrap_or_else(|e| panic!("{name}: {}: evidence_file {f}: {e}", n.id));
                if let Some(a) = &n.authors {
                    assert!(
                        text.contains(&a.quote),
                        "{name}: {}: the quote is not in {f}: {:?}",
                        n.id,
                        a.quote
                    );
                    assert!(
                        a.quote.contains(&format!("{}", a.value)),
                        "{name}: {}: the value {} is not in its quote {:?}",
                        n.id,
                        a.value,
                        a.quote
                    );
                    values += 1;
                }
            }
        }
        assert!(values >= 3, "{values} authors' values in the data files");
    }

    fn number(authors: f64) -> Number {
        let mut n: Number = toml::from_str(
            r#"
id = "x"
quantity = "q"
value = 0.803
unit = "x"
kind = "ratio"
figure = "Fig. 8a"
section = "§V-B"
line = 1
quote = "q"
headline = true
evidence = "authors-simulator"
evidence_file = "validation/ssdsim/README.md"
"#,
        )
        .unwrap();
        n.authors = Some(AuthorsValue {
            simulator: "SSDsim".into(),
            value: authors,
            setting: "5 slots".into(),
            quote: String::new(),
        });
        n
    }

    /// The authors' value judged by the project's rule: against the paper's value, and Lagoon's
    /// mean against it; the sentence says which agree.
    #[test]
    fn the_authors_value_is_judged_by_the_same_rule() {
        let (c, s) = authors_check(&number(0.894), Some(0.868)).unwrap();
        // -13.2 % against -10.6 %: within 2.65 points; -10.6 % against -19.7 %: not.
        assert_eq!(
            (c.agrees_with_paper, c.agrees_with_lagoon),
            (false, Some(true))
        );
        assert!(
            s.contains("agrees with Lagoon's value and not with the paper's"),
            "{s}"
        );
        let (c, _) = authors_check(&number(0.912), Some(0.833)).unwrap();
        assert_eq!(
            (c.agrees_with_paper, c.agrees_with_lagoon),
            (false, Some(false))
        );
        let (c, s) = authors_check(&number(0.80), None).unwrap();
        assert_eq!((c.agrees_with_paper, c.agrees_with_lagoon), (true, None));
        assert!(s.ends_with("agrees with the paper's value"), "{s}");
    }

    /// Applying the evidence twice gives the same headline; removing it restores the verdict's
    /// reason alone.
    #[test]
    fn apply_rewrites_only_the_evidence() {
        let n = number(0.894);
        let mut h = Headline {
            id: "x".into(),
            quantity: "q".into(),
            paper: claims::PaperValue {
                value: 0.803,
                unit: "x".into(),
                kind: Kind::Ratio,
                figure: "f".into(),
                section: "s".into(),
                line: 1,
            },
            lagoon: Some(claims::stat(&[0.86, 0.87])),
            verdict: claims::Verdict::NotReproduced,
            outside_ci: Some(true),
            evidence: Evidence::LagoonOnly,
            evidence_file: None,
            authors: None,
            reason: "effect".into(),
        };
        apply(&mut h, &n);
        let once = h.clone();
        apply(&mut h, &n);
        assert_eq!(h, once);
        assert!(h
            .reason
            .starts_with("effect; the authors' simulator, SSDsim"));
        let mut plain = n.clone();
        plain.evidence = Evidence::LagoonOnly;
        plain.evidence_file = None;
        plain.authors = None;
        apply(&mut h, &plain);
        assert_eq!((h.reason.as_str(), h.authors.is_none()), ("effect", true));
    }
}
