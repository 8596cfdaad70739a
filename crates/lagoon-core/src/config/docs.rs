//! docs/CONFIG.md, written from the key declarations and the rules: `lagoon config --markdown`
//! prints it; a test checks the file is current (`LAGOON_BLESS=1` rewrites it).

use super::rules::RULES;
use super::schema::{dotted, walk, Field, Key, Kind, Table};
use super::SsdConfig;
use std::fmt::Write;

/// The text of docs/CONFIG.md.
pub fn markdown() -> String {
    let mut md = String::from(
        "# Configuration keys\n\n\
         Generated from the key declarations in `crates/lagoon-core/src/config/` by \
         `lagoon config --markdown > docs/CONFIG.md`; do not edit by hand (a test checks it is \
         current; `LAGOON_BLESS=1 cargo test -p lagoon-core config_md` rewrites it).\n\n\
         A drive is a TOML file (or a Python dict laid out the same way). Defaults are the \
         `perf-optimized` preset, so a file lists only what it changes, or starts from another \
         preset with `base = \"cost-optimized\"`. Unknown keys are refused, and so is a section \
         written as anything but a table; every error names its key. `lagoon config --keys \
         PRESET` lists a preset's values.\n",
    );
    let cfg = SsdConfig::default();
    walk(&cfg, &mut |t, keys| section(&mut md, t, keys));
    md.push_str(
        "\n## Rules across keys\n\n\
         Checked after the ranges, in this order; the first broken one is the error.\n\n",
    );
    for r in RULES {
        let _ = writeln!(md, "- `{}`: {}.", r.keys, r.doc);
    }
    md
}

fn section(md: &mut String, t: &dyn Table, keys: &[Key<'_>]) {
    let title = if t.name().is_empty() {
        "The drive (top level)".to_string()
    } else {
        format!("`[{}]`", t.name())
    };
    let _ = write!(md, "\n## {title}\n\n{}\n\n", one_line(t.doc()));
    md.push_str("| key | default | unit | takes | description |\n|---|---|---|---|---|\n");
    for k in keys {
        let default = match &k.field {
            Field::Number(v) => v.to_string(),
            Field::Toml(v) => format!("`{v}`"),
            Field::Table(sub) => format!("[`[{}]`](#{})", sub.name(), anchor(sub.name())),
            Field::Absent => String::new(),
        };
        let takes = match k.kind {
            Kind::Int | Kind::Real => k.range.map_or(String::new(), |r| r.to_string()),
            Kind::Word => k
                .words
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(" \\| "),
            Kind::Bool => "`true` \\| `false`".into(),
            Kind::Text => "text".into(),
            Kind::List => "list".into(),
            Kind::Table => "table".into(),
        };
        let _ = writeln!(
            md,
            "| `{}` | {default} | {} | {takes} | {} |",
            dotted(t.name(), k.name),
            cell(k.unit),
            cell(&one_line(k.doc))
        );
    }
}

/// A doc comment's lines as one line.
fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text safe inside a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// GitHub's anchor for a `## `[name]`` heading.
fn anchor(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/CONFIG.md is what the declarations say; `LAGOON_BLESS=1` rewrites it.
    #[test]
    fn config_md_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/CONFIG.md");
        let want = markdown();
        if std::env::var_os("LAGOON_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/CONFIG.md is stale: `LAGOON_BLESS=1 cargo test -p lagoon-core config_md` \
             (or `lagoon config --markdown > docs/CONFIG.md`) rewrites it"
        );
    }

    #[test]
    fn every_key_is_documented() {
        let cfg = SsdConfig::default();
        walk(&cfg, &mut |t, keys| {
            assert!(!one_line(t.doc()).is_empty(), "[{}] has no doc", t.name());
            for k in keys {
                let key = dotted(t.name(), k.name);
                assert!(!one_line(k.doc).is_empty(), "{key} has no doc");
                assert_eq!(
                    k.range.is_some(),
                    matches!(k.kind, Kind::Int | Kind::Real),
                    "{key}: a number has a range, nothing else"
                );
                assert_eq!(k.kind == Kind::Word, !k.words.is_empty(), "{key}: words");
            }
        });
    }
}
