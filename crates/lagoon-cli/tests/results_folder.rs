//! Issue 42's cases, one regression test each: a results folder redrawn with `--render-only`
//! never makes Lagoon write or read outside it, invalid data in it is refused by file and
//! entry with nothing drawn, its notes are kept, intervals stay within their quantity's range,
//! and `lagoon net` draws and reports what it measured and only that.

mod common;
use common::{lagoon, tmp};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A copy of the committed `docs/results/<paper>` in `<tmp>/r`, without what rendering
/// writes (SVGs, summary.md) or does not read (runs.json); the temporary directory holds
/// `outside/victim.txt` beside it.
struct Copy {
    tmp: tempfile::TempDir,
    dir: PathBuf,
    victim: PathBuf,
}

const VICTIM: &str = "written by hand, not by Lagoon\n";

fn copy(paper: &str) -> Copy {
    let tmp = tempfile::Builder::new()
        .prefix("lagoon-folder-")
        .tempdir()
        .unwrap();
    let dir = tmp.path().join("r");
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(root().join("docs/results").join(paper)).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".svg") || name == "summary.md" || name == "runs.json") {
            std::fs::copy(&p, dir.join(&name)).unwrap();
        }
    }
    std::fs::create_dir(tmp.path().join("outside")).unwrap();
    let victim = tmp.path().join("outside/victim.txt");
    std::fs::write(&victim, VICTIM).unwrap();
    Copy { tmp, dir, victim }
}

impl Copy {
    fn render(&self, paper: &str) -> (i32, String) {
        let (code, _, err) = lagoon(&[
            "reproduce",
            paper,
            "--render-only",
            "--out",
            self.dir.to_str().unwrap(),
        ]);
        assert!(!err.contains("panicked"), "{err}");
        (code, err)
    }
    /// Edit `name`'s text.
    fn edit(&self, name: &str, f: impl FnOnce(String) -> String) {
        let p = self.dir.join(name);
        std::fs::write(&p, f(std::fs::read_to_string(&p).unwrap())).unwrap();
    }
    /// The row of `name` that starts with `lead`: its other cells set to `rest`.
    fn set_row(&self, name: &str, lead: &str, rest: &str) {
        self.edit(name, |t| {
            let mut n = 0;
            let out: Vec<String> = t
                .lines()
                .map(|l| match l.starts_with(lead) {
                    true => {
                        n += 1;
                        format!("{lead}{rest}")
                    }
                    false => l.to_string(),
                })
                .collect();
            assert_eq!(n, 1, "{name}: {lead}");
            out.join("\n") + "\n"
        });
    }
    fn svgs(&self) -> usize {
        std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "svg"))
            .filter(|p| p.symlink_metadata().unwrap().is_file())
            .count()
    }
    fn victim_untouched(&self) {
        assert_eq!(std::fs::read_to_string(&self.victim).unwrap(), VICTIM);
        let outside: Vec<_> = std::fs::read_dir(self.tmp.path().join("outside"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(outside.len(), 1, "{outside:?}");
    }
}

/// A refused folder: exit 2, an error naming `needles`, no figure and no summary drawn.
fn assert_refused(c: &Copy, paper: &str, needles: &[&str]) {
    let (code, err) = c.render(paper);
    assert_eq!(code, 2, "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    assert!(err.len() < 1_000, "{} bytes: {err}", err.len());
    assert_eq!(c.svgs(), 0, "drawn from a refused folder: {err}");
    assert!(
        !c.dir
            .join("summary.md")
            .symlink_metadata()
            .is_ok_and(|m| m.is_file()),
        "{err}"
    );
    c.victim_untouched();
}

/// The fuzz campaign's first finding: an SVG named `../victim.txt` (or an absolute path) was
/// written over that file, and a CSV named `../../../etc/hostname` read.
#[test]
fn a_figure_name_outside_the_folder_is_refused() {
    let c = copy("piq");
    let victim = c.victim.to_str().unwrap().to_string();
    for (field, name) in [
        ("svg", "../outside/victim.txt"),
        ("svg", victim.as_str()),
        ("csv", "../../../etc/hostname"),
        ("csv", "sub/../fig08_read_latency.csv"),
    ] {
        let c = copy("piq");
        c.edit("figures.json", |t| {
            let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
            v["figures"][0][field] = name.into();
            serde_json::to_string_pretty(&v).unwrap()
        });
        assert_refused(
            &c,
            "piq",
            &["figures.json", &format!("figures[0].{field}"), name],
        );
    }
    // A table's CSV too.
    c.edit("figures.json", |t| {
        let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
        v["tables"][0]["csv"] = "../outside/victim.txt".into();
        serde_json::to_string_pretty(&v).unwrap()
    });
    assert_refused(&c, "piq", &["tables[0].csv", "directory part"]);
}

/// A 200 KB figure name was echoed whole in the error: it is cut, with its length said.
#[test]
fn a_huge_name_is_cut_in_the_error() {
    let c = copy("mqsimnet");
    let long = format!("{}.svg", "x".repeat(200_000));
    c.edit("figures.json", |t| {
        let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
        v["figures"][1]["svg"] = long.as_str().into();
        v["figures"][2]["kind"] = "y".repeat(100_000).into();
        serde_json::to_string_pretty(&v).unwrap()
    });
    assert_refused(&c, "mqsimnet", &["figures.json", "bytes in all"]);
}

/// A link in the folder to a file elsewhere is neither read nor written through.
#[cfg(unix)]
#[test]
fn a_link_to_outside_the_folder_is_refused() {
    use std::os::unix::fs::symlink;
    for name in [
        "fig08_read_latency.csv",
        "fig08_read_latency.svg",
        "summary.md",
        "notes.md",
        "headlines.json",
    ] {
        let c = copy("piq");
        let _ = std::fs::remove_file(c.dir.join(name));
        symlink(&c.victim, c.dir.join(name)).unwrap();
        assert_refused(&c, "piq", &[name, "leads outside"]);
    }
}

/// `--render-only` on a copy of docs/results/piq without `--notes` dropped the notes section
/// from summary.md (`reproduce all` appended each folder's notes.md; a single paper did not).
#[test]
fn a_single_paper_redraw_keeps_the_folders_notes() {
    let c = copy("piq");
    let (code, err) = c.render("piq");
    assert_eq!(code, 0, "{err}");
    let committed = std::fs::read_to_string(root().join("docs/results/piq/summary.md")).unwrap();
    assert!(committed.contains("## Notes (written by hand"));
    assert_eq!(
        std::fs::read_to_string(c.dir.join("summary.md")).unwrap(),
        committed
    );
    // --notes replaces them and is kept as the folder's notes.md, so the next redraw keeps it.
    let other = tmp("other.md", "Other notes.\n");
    let (code, _, err) = lagoon(&[
        "reproduce",
        "piq",
        "--render-only",
        "--out",
        c.dir.to_str().unwrap(),
        "--notes",
        &other,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(c.dir.join("notes.md")).unwrap(),
        "Other notes.\n"
    );
    let (code, err) = c.render("piq");
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(c.dir.join("summary.md"))
        .unwrap()
        .ends_with("given with --notes)\n\nOther notes.\n"));
}

/// A tampering: what it is, how it rewrites the first row, and what the error must say.
type Tamper = (&'static str, fn(&str) -> String, &'static [&'static str]);

/// Render-only drew what the files said: a value outside its own 95 % interval, NaN drawn as
/// a figure labelled "NaN", a bar given twice. Each is refused by file and line, nothing drawn.
#[test]
fn invalid_figure_data_is_refused_by_file_and_line() {
    let csv = "fig08_read_latency.csv";
    // Line 2: the first row (workload, scheduler, value, lo, hi, n).
    let cases: [Tamper; 5] = [
        (
            "a negative value outside its interval",
            |row| {
                let mut c: Vec<String> = row.split(',').map(String::from).collect();
                c[2] = "-0.5".into();
                c.join(",")
            },
            &["fig08_read_latency.csv line 2", "outside its 95 % interval"],
        ),
        (
            "NaN",
            |row| {
                let mut c: Vec<String> = row.split(',').map(String::from).collect();
                c[2] = "NaN".into();
                c.join(",")
            },
            &["fig08_read_latency.csv line 2", "not a finite number"],
        ),
        (
            "an interval upside down",
            |row| {
                let mut c: Vec<String> = row.split(',').map(String::from).collect();
                let hi: f64 = c[4].parse().unwrap();
                c[3] = format!("{}", hi + 0.5);
                c.join(",")
            },
            &["line 2"],
        ),
        (
            "a bar given twice",
            |row| format!("{row}\n{row}"),
            &["line 3", "a second row"],
        ),
        (
            "text for a number",
            |row| {
                let mut c: Vec<String> = row.split(',').map(String::from).collect();
                c[2] = "fast".into();
                c.join(",")
            },
            &["line 2", "\"fast\": not a finite number"],
        ),
    ];
    for (what, f, needles) in cases {
        let c = copy("piq");
        c.edit(csv, |t| {
            let mut lines: Vec<String> = t.lines().map(String::from).collect();
            // a row that differs from its interval (the first non-noop row)
            let i = lines
                .iter()
                .position(|l| !l.contains(",noop,") && !l.starts_with("workload"))
                .unwrap();
            lines[i] = f(&lines[i]);
            // keep it on line 2
            let row = lines.remove(i);
            lines.insert(1, row);
            lines.join("\n") + "\n"
        });
        let mut n = vec![csv];
        n.extend_from_slice(needles);
        let (code, err) = c.render("piq");
        assert_eq!(code, 2, "{what}: {err}");
        for x in &n {
            assert!(err.contains(x), "{what}: {x:?} not in {err}");
        }
        assert_eq!(c.svgs(), 0, "{what}");
    }
}

/// headlines.json: a mean outside its interval, a duplicated headline list (a 94 MB
/// summary.md), an unknown kind, a verdict the rule does not give: refused by entry.
#[test]
fn invalid_headlines_are_refused_by_entry() {
    type Edit = fn(&mut serde_json::Value);
    let cases: [(Edit, &[&str]); 5] = [
        (
            |v| v["headlines"][0]["lagoon"]["mean"] = (-3.0).into(),
            &["headlines[0]", "outside its 95 % interval"],
        ),
        (
            |v| {
                let list = v["headlines"].as_array().unwrap().clone();
                v["headlines"].as_array_mut().unwrap().extend(list);
            },
            &["given twice"],
        ),
        (
            |v| v["headlines"][1]["paper"]["kind"] = "speed".into(),
            &["unknown variant", "speed"],
        ),
        (
            |v| {
                let h = &mut v["headlines"][2];
                h["verdict"] = match h["verdict"].as_str() {
                    Some("reproduced") => "not-reproduced",
                    _ => "reproduced",
                }
                .into();
            },
            &["headlines[2]", "the rule gives"],
        ),
        (
            |v| v["headlines"][0]["evidence_file"] = "../../../etc/passwd".into(),
            &["evidence_file", "no .."],
        ),
    ];
    for (edit, needles) in cases {
        let c = copy("piq");
        c.edit("headlines.json", |t| {
            let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
            edit(&mut v);
            serde_json::to_string_pretty(&v).unwrap()
        });
        let mut n = vec!["headlines.json"];
        n.extend_from_slice(needles);
        assert_refused(&c, "piq", &n);
    }
    // A mean edited inside its interval still disagrees with headline_seeds.csv.
    let c = copy("piq");
    c.edit("headlines.json", |t| {
        let mut v: serde_json::Value = serde_json::from_str(&t).unwrap();
        let st = &mut v["headlines"][0]["lagoon"];
        let (lo, mean) = (
            st["ci95"][0].as_f64().unwrap(),
            st["mean"].as_f64().unwrap(),
        );
        st["mean"] = (mean - (mean - lo) / 100.0).into();
        serde_json::to_string_pretty(&v).unwrap()
    });
    let (code, err) = c.render("piq");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("headline_seeds.csv"), "{err}");
}

/// A CSV far larger than results are, or a pipe where a CSV should be, is refused before it
/// is read.
#[cfg(unix)]
#[test]
fn sizes_and_special_files_are_refused_before_reading() {
    let c = copy("piq");
    let f = std::fs::File::create(c.dir.join("fig08_read_latency.csv")).unwrap();
    f.set_len(3 << 30).unwrap();
    assert_refused(
        &c,
        "piq",
        &["fig08_read_latency.csv", "more than the 16777216"],
    );
    let c = copy("piq");
    let p = c.dir.join("fig08_read_latency.csv");
    std::fs::remove_file(&p).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&p).status();
    if made.is_ok_and(|s| s.success()) {
        assert_refused(&c, "piq", &["fig08_read_latency.csv", "not a regular file"]);
    }
}

/// The first `<text ...>` whose text starts with `start`, as its text.
fn text_starting(svg: &str, start: &str) -> String {
    let i = svg
        .find(&format!(">{start}"))
        .unwrap_or_else(|| panic!("no {start:?} in {svg}"));
    svg[i + 1..i + svg[i..].find("</text>").unwrap()].to_string()
}

/// Venice Fig. 13's percentage axis reached 125 with whiskers above 100 %; PIQ Fig. 8a's ran
/// below 0 (two-seed intervals). Whiskers are cut at the quantity's range, the cut said.
#[test]
fn intervals_are_drawn_within_their_quantitys_range() {
    let c = copy("venice");
    // A two-seed interval of a share near 100 %: 98.25, from 92.53 to 103.97.
    c.set_row(
        "fig13_conflicts.csv",
        "src2_1,pssd,",
        "98.250000,92.532300,103.967700,2",
    );
    let (code, err) = c.render("venice");
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(c.dir.join("fig13_conflicts.svg")).unwrap();
    assert!(
        !svg.contains(">125</text>") && svg.contains(">100</text>"),
        "{svg}"
    );
    assert_eq!(
        text_starting(&svg, "whiskers"),
        "whiskers: 95 % interval over seeds; 1 interval cut at 100, the most the quantity can be (open end)"
    );
    assert!(
        svg.contains("(95 % interval 92.532 to 103.968, drawn to 100)"),
        "{svg}"
    );
    // A value above 100 % is not a share: refused.
    c.edit("fig13_conflicts.csv", |t| {
        t.replace(
            "98.250000,92.532300,103.967700",
            "101.0,92.532300,103.967700",
        )
    });
    let (code, err) = c.render("venice");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("more than 100, the most the quantity"),
        "{err}"
    );

    let c = copy("piq");
    c.set_row(
        "fig08_read_latency.csv",
        "syn-write-heavy,piq,",
        "0.4270,-1.3082,2.1621,2",
    );
    let (code, err) = c.render("piq");
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(c.dir.join("fig08_read_latency.svg")).unwrap();
    assert_eq!(
        text_starting(&svg, "whiskers"),
        "whiskers: 95 % interval over seeds; 1 interval cut at 0, the least the quantity can be (open end)"
    );
    assert!(
        !svg.contains(">-0.5</text>") && !svg.contains(">-1"),
        "{svg}"
    );
}

/// The README's `lagoon net ... --load 0.05,0.2 --plot net.svg` drew one dot on an axis
/// 588.25-589.75, leaving out the saturated 0.2 without a word. Every measured load is drawn,
/// the saturated one ringed and said so; a load too light to measure is named under the plot.
#[test]
fn net_plot_draws_every_measured_load_and_marks_saturation() {
    let svg = tmp("net.svg", "");
    let (code, out, err) = lagoon(&[
        "net",
        "--ssd",
        "perf-optimized",
        "--traffic",
        "transpose",
        "--load",
        "0.05,0.2,1e-15",
        "--plot",
        &svg,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("saturated"), "{out}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(svg.matches(r#"class="flagged""#).count(), 1, "{svg}");
    assert!(svg.contains(">ringed: saturated"), "{svg}");
    assert!(
        svg.contains("too light to measure in the sampling windows: load 1e-15 (perf-optimized)"),
        "{svg}"
    );
    // the saturated point's 12,000 cycles are on the axis
    assert!(svg.contains(">10k</text>"), "{svg}");
}
