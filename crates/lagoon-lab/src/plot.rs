//! Small, dependency-free SVG charts for result figures: grouped bars (one group per workload,
//! one bar per design) and lines (latency CDFs). Text is real SVG text, so figures stay
//! searchable and crisp at any size.

use std::fmt::Write;

/// One colour per series, in series order (colour-blind-safe Okabe-Ito palette).
const PALETTE: [&str; 8] = [
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442",
];

/// The style slot of a series: a design (or host scheduler) keeps its colour, hatch, dash and
/// marker in every figure; other series take slots in order.
fn slot(name: &str, i: usize) -> usize {
    match name {
        "baseline" | "noop" => 0,
        "pssd" | "rws" => 1,
        "pnssd" | "piq-r" => 2,
        "nossd" | "piq-w" => 3,
        "ideal" | "piq" => 4,
        "venice" => 5,
        _ => i,
    }
}

/// The same design keeps its colour in every figure.
fn color(name: &str, i: usize) -> &'static str {
    PALETTE[slot(name, i) % PALETTE.len()]
}

const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
/// Width of a tick label's character at the 12 px font (an upper estimate for digits).
const CHAR_W: f64 = 7.5;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 110.0;
const HEIGHT: f64 = 300.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A linear axis: bounds on round numbers, a 1-2-5 tick step and the decimals every tick
/// label is printed with (the same for all, so "0.00" and "20" never mix).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    lo: f64,
    hi: f64,
    step: f64,
    decimals: usize,
    /// `lo`, `hi` and the ticks are log10 of the value: whole decades, or (`log125`) the
    /// 1-2-5 values between `lo` and `hi`.
    log: bool,
    log125: bool,
}

/// The 1-2-5 values (…, 0.5, 1, 2, 5, 10, …) from the largest at or below `lo` to the
/// smallest at or above `hi` (both > 0).
fn one_two_five(lo: f64, hi: f64) -> Vec<f64> {
    let mut e = lo.log10().floor() as i32 - 1;
    let mut out = Vec::new();
    loop {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(e);
            // Round to the decade's own digits, so 0.2 is 0.2 and not 0.20000000000000004.
            let v = if e < 0 {
                (v * 10f64.powi(-e)).round() / 10f64.powi(-e)
            } else {
                v
            };
            if v <= lo * (1.0 + 1e-9) {
                out.clear();
            }
            out.push(v);
            if v >= hi * (1.0 - 1e-9) {
                return out;
            }
        }
        e += 1;
    }
}

impl Axis {
    /// Covers `[lo, hi]` (with a little room when it does not start at zero) in 4-8 ticks.
    fn fit(lo: f64, hi: f64, from_zero: bool) -> Self {
        let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() {
            (lo.min(hi), lo.max(hi))
        } else {
            (0.0, 1.0)
        };
        if from_zero {
            lo = lo.min(0.0);
        } else {
            let pad = ((hi - lo) * 0.08)
                .max(hi.abs().max(lo.abs()) * 1e-3)
                .max(1e-12);
            // Room below the data, but never below zero for data that cannot be negative
            // (a bandwidth or utilization axis reaching -1 reads as a bug).
            lo = if lo >= 0.0 {
                (lo - pad).max(0.0)
            } else {
                lo - pad
            };
            hi += pad;
        }
        if hi - lo < 1e-12 {
            hi = lo + 1.0;
        }
        let raw = (hi - lo) / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|&st| st >= raw * 0.999)
            .unwrap_or(10.0 * mag);
        let lo = (lo / step).floor() * step;
        let hi = (hi / step).ceil() * step;
        let decimals = if step >= 1.0 && step.fract() == 0.0 {
            0
        } else {
            // 0.25 needs two decimals, 0.2 one.
            let d = (-step.log10()).ceil().max(0.0) as usize;
            if ((step * 10f64.powi(d as i32)).round() - step * 10f64.powi(d as i32)).abs() > 1e-6 {
                d + 1
            } else {
                d
            }
        };
        Axis {
            lo,
            hi,
            step,
            decimals,
            log: false,
            log125: false,
        }
    }

    /// A log axis covering `[lo, hi]` (both > 0): whole decades, a tick at each, when the
    /// data span more than two and a half; else from the 1-2-5 value at or below `lo` to
    /// the one at or above `hi`, a tick at each 1-2-5 value (so data from 0.5 to 4 are not
    /// drawn on 0.1-10).
    fn fit_log(lo: f64, hi: f64) -> Self {
        let ok = lo > 0.0 && hi.is_finite() && hi >= lo;
        if ok && hi.log10() - lo.log10() <= 2.5 {
            let t = one_two_five(lo, hi);
            let (a, b) = (t[0].log10(), t[t.len() - 1].log10());
            return Axis {
                lo: a,
                hi: if b > a { b } else { a + 2f64.log10() },
                step: 1.0,
                decimals: 0,
                log: true,
                log125: true,
            };
        }
        let (lo, hi) = if ok {
            (lo.log10().floor(), hi.log10().ceil())
        } else {
            (0.0, 1.0)
        };
        Axis {
            lo,
            hi: hi.max(lo + 1.0),
            step: 1.0,
            decimals: 0,
            log: true,
            log125: false,
        }
    }

    /// A value in axis units (log10 on a log axis).
    fn pos(&self, v: f64) -> f64 {
        if self.log {
            v.log10()
        } else {
            v
        }
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log125 {
            return one_two_five(10f64.powf(self.lo), 10f64.powf(self.hi))
                .into_iter()
                .map(f64::log10)
                .collect();
        }
        let n = ((self.hi - self.lo) / self.step).round() as i64;
        (0..=n).map(|i| self.lo + self.step * i as f64).collect()
    }

    fn label(&self, v: f64) -> String {
        if self.log {
            return log_label(10f64.powf(v));
        }
        let v = if v.abs() < self.step * 1e-9 { 0.0 } else { v };
        if v.abs() >= 1e4 && self.decimals == 0 {
            fmt_num(v)
        } else {
            format!("{v:.*}", self.decimals)
        }
    }

    /// Fraction of the axis height at `v` (0 at `lo`).
    fn frac(&self, v: f64) -> f64 {
        ((v - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0)
    }
}

/// A log axis tick's value (a power of ten, a 1-2-5 value or a power of two) as text: as
/// many decimals as it needs, a k or M suffix above a thousand.
fn log_label(v: f64) -> String {
    if v >= 1.0 {
        return fmt_num((v * 1e6).round() / 1e6);
    }
    let mut d = (-v.log10()).ceil().max(0.0) as usize;
    while d < 12 && ((v * 10f64.powi(d as i32)).round() / 10f64.powi(d as i32) - v).abs() > v * 1e-6
    {
        d += 1;
    }
    format!("{v:.d$}")
}

fn header(w: f64, h: f64, title: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="Helvetica, Arial, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{:.1}" y="24" text-anchor="middle" font-size="15" font-weight="bold">{}</text>
"#,
        w / 2.0,
        esc(title)
    );
    s
}

/// Legend in one row: a hatched swatch per bar series, or a dashed line with its marker.
fn legend(s: &mut String, names: &[String], x0: f64, y: f64, lines: bool) {
    let mut x = x0;
    for (i, n) in names.iter().enumerate() {
        if lines {
            let c = color(n, i);
            let _ = write!(
                s,
                r#"<line x1="{x:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="1.8" stroke-dasharray="{}"/>{}"#,
                x + 24.0,
                y - 4.0,
                y - 4.0,
                dash(slot(n, i)),
                marker(slot(n, i), x + 12.0, y - 4.0, c)
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{y:.1}">{}</text>"#,
                x + 28.0,
                esc(n)
            );
            x += 40.0 + 7.0 * n.len() as f64;
        } else {
            let _ = writeln!(
                s,
                r##"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="url(#fill{i})" stroke="#333" stroke-width="0.5"/><text x="{:.1}" y="{:.1}">{}</text>"##,
                y - 10.0,
                x + 16.0,
                y,
                esc(n)
            );
            x += 28.0 + 7.0 * n.len() as f64;
        }
    }
}

fn y_axis(s: &mut String, w: f64, ax: &Axis, label: &str) {
    for v in ax.ticks() {
        let y = TOP + HEIGHT * (1.0 - ax.frac(v));
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            w - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            ax.label(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + HEIGHT / 2.0,
        esc(label)
    );
}

/// Fill of series `k`'s bars: its colour plus a hatch of its own (solid, diagonal, back
/// diagonal, horizontal, vertical, cross, dots, crosshatch), so bars stay apart in grey print.
/// The two axis lines and the x label, centred under the plot at height `label_y`.
fn frame(s: &mut String, w: f64, label_y: f64, x_label: &str) {
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{:.1}" stroke="#000"/><line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#000"/>"##,
        TOP + HEIGHT,
        w - RIGHT,
        TOP + HEIGHT,
        TOP + HEIGHT
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{label_y:.1}" text-anchor="middle">{}</text>"#,
        LEFT + (w - LEFT - RIGHT) / 2.0,
        esc(x_label)
    );
}

fn hatch_defs(s: &mut String, names: &[String]) {
    s.push_str("<defs>\n");
    for (k, n) in names.iter().enumerate() {
        let mark = match slot(n, k) % 8 {
            0 => "",
            1 => r#"<path d="M0,6 L6,0" stroke="white" stroke-width="1.2"/>"#,
            2 => r#"<path d="M0,0 L6,6" stroke="white" stroke-width="1.2"/>"#,
            3 => r#"<path d="M0,3 L6,3" stroke="white" stroke-width="1.2"/>"#,
            4 => r#"<path d="M3,0 L3,6" stroke="white" stroke-width="1.2"/>"#,
            5 => r#"<path d="M0,3 L6,3 M3,0 L3,6" stroke="white" stroke-width="1"/>"#,
            6 => r#"<circle cx="3" cy="3" r="1.2" fill="white"/>"#,
            _ => r#"<path d="M0,6 L6,0 M0,0 L6,6" stroke="white" stroke-width="0.9"/>"#,
        };
        let _ = writeln!(
            s,
            r#"<pattern id="fill{k}" patternUnits="userSpaceOnUse" width="6" height="6"><rect width="6" height="6" fill="{}"/>{mark}</pattern>"#,
            color(n, k)
        );
    }
    s.push_str("</defs>\n");
}

/// Dash pattern of line series `k`.
fn dash(k: usize) -> &'static str {
    ["", "7,3", "2,3", "9,3,2,3", "4,4", "12,4", "2,2,6,2", "1,5"][k % 8]
}

/// Marker `k` (circle, square, triangle, diamond, cross, plus, ...) centred at (x, y).
fn marker(k: usize, x: f64, y: f64, c: &str) -> String {
    let r = 3.5;
    match k % 6 {
        0 => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{c}"/>"#),
        1 => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{}" height="{}" fill="{c}"/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        2 => format!(
            r#"<path d="M{x:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z" fill="{c}"/>"#,
            y - r - 0.5,
            x + r,
            y + r,
            x - r,
            y + r
        ),
        3 => format!(
            r#"<path d="M{x:.1},{:.1} L{:.1},{y:.1} L{x:.1},{:.1} L{:.1},{y:.1} Z" fill="{c}"/>"#,
            y - r - 0.5,
            x + r + 0.5,
            y + r + 0.5,
            x - r - 0.5
        ),
        4 => format!(
            r#"<path d="M{:.1},{:.1} L{:.1},{:.1} M{:.1},{:.1} L{:.1},{:.1}" stroke="{c}" stroke-width="2"/>"#,
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
        _ => format!(
            r#"<path d="M{:.1},{y:.1} L{:.1},{y:.1} M{x:.1},{:.1} L{x:.1},{:.1}" stroke="{c}" stroke-width="2"/>"#,
            x - r - 0.5,
            x + r + 0.5,
            y - r - 0.5,
            y + r + 0.5
        ),
    }
}

/// Grouped bars: `groups` along x (`x_label` under them), one bar per series in each group.
/// With a `reference` (e.g. 1.0 for "same as baseline") the axis fits the data around it and
/// bars grow up or down from a dashed line there; otherwise bars start at zero. A missing
/// (NaN) value is marked "n/a" where its bar would be.
pub fn bars(
    title: &str,
    x_label: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
) -> String {
    bars_with(
        &BarStyle {
            reference,
            ..Default::default()
        },
        title,
        x_label,
        y_label,
        groups,
        series,
    )
}

/// As [`bars`] on a logarithmic y axis (bars grow from its bottom), for values over several
/// orders of magnitude. Values must be > 0; others are "n/a".
pub fn bars_log(
    title: &str,
    x_label: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
) -> String {
    bars_with(
        &BarStyle {
            log_y: true,
            ..Default::default()
        },
        title,
        x_label,
        y_label,
        groups,
        series,
    )
}

/// How [`bars_with`] draws: a reference line the bars grow from (else zero, or the bottom
/// of a log axis), a log y axis, and 95 % intervals (per series, per group: (low, high), NaN
/// for none) drawn as whiskers, and labelled horizontal marks (a published value or bound
/// drawn beside the bars: dotted, its label at the right end above it; bars do not grow
/// from it).
#[derive(Clone, Debug, Default)]
pub struct BarStyle {
    pub reference: Option<f64>,
    pub log_y: bool,
    pub intervals: Option<Vec<Vec<(f64, f64)>>>,
    pub marks: Vec<(f64, String)>,
    /// The most a value can be (1 for a fraction): intervals reaching above it are cut there.
    pub cap: Option<f64>,
}

/// Grouped bars as [`bars`], styled by `st`.
pub fn bars_with(
    st: &BarStyle,
    title: &str,
    x_label: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
) -> String {
    let (reference, log_y) = (st.reference, st.log_y);
    let interval = |k: usize, g: usize| -> Option<(f64, f64)> {
        let (lo, hi) = *st.intervals.as_ref()?.get(k)?.get(g)?;
        (lo.is_finite() && hi.is_finite() && (!log_y || lo > 0.0)).then_some((lo, hi))
    };
    let per_group = series.len().max(1) as f64;
    let bar_w = 9.0;
    let group_w = per_group * bar_w + 12.0;
    // wide enough for every group and for the title (~9.5 px per bold 15 px character)
    let w = (LEFT + RIGHT + group_w * groups.len() as f64)
        .max(560.0)
        .max(9.5 * title.chars().count() as f64 + 40.0);
    // A line under the x label says what the whiskers are.
    let note_h = if st.intervals.is_some() { 16.0 } else { 0.0 };
    // Group labels run down at 45° (~4.8 px a character at 12 px): below about 19 characters
    // they fit above the x label; a longer one moves the x label down.
    let longest = groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as f64;
    let label_room = (4.8 * longest - 94.0).max(0.0).ceil();
    let h = TOP + HEIGHT + BOTTOM + 20.0 + note_h + label_room;
    let mut vals: Vec<f64> = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .filter(|v| v.is_finite() && (!log_y || *v > 0.0))
        .chain(reference)
        .chain(
            st.marks
                .iter()
                .map(|m| m.0)
                .filter(|v| v.is_finite() && (!log_y || *v > 0.0)),
        )
        .collect();
    let floor = floor_of(&vals);
    let ceiling = st.cap.unwrap_or(f64::INFINITY);
    let mut cuts = Cuts::default();
    for k in 0..series.len() {
        for g in 0..groups.len() {
            if let Some((lo, hi)) = interval(k, g) {
                vals.extend([lo.max(floor), hi.min(ceiling)]);
            }
        }
    }
    let (lo, hi) = vals
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    let ax = if log_y {
        Axis::fit_log(lo, hi)
    } else {
        Axis::fit(lo, hi, reference.is_none())
    };
    let base = match (log_y, reference) {
        (true, Some(r)) if r > 0.0 => r.clamp(10f64.powf(ax.lo), 10f64.powf(ax.hi)),
        (true, _) => 10f64.powf(ax.lo),
        (false, r) => r.unwrap_or(0.0).clamp(ax.lo, ax.hi),
    };
    let y_of = |v: f64| TOP + HEIGHT * (1.0 - ax.frac(ax.pos(v)));
    let mut s = header(w, h, title);
    let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
    hatch_defs(&mut s, &names);
    y_axis(&mut s, w, &ax, y_label);
    let plot_w = w - LEFT - RIGHT;
    let gw = plot_w / groups.len().max(1) as f64;
    for (g, name) in groups.iter().enumerate() {
        let x0 = LEFT + gw * g as f64 + (gw - per_group * bar_w) / 2.0;
        for (k, (sname, vals)) in series.iter().enumerate() {
            let v = vals.get(g).copied().unwrap_or(f64::NAN);
            let x = x0 + bar_w * k as f64;
            if !v.is_finite() || (log_y && v <= 0.0) {
                let _ = writeln!(
                    s,
                    r##"<text transform="translate({:.1},{:.1}) rotate(-90)" font-size="9" fill="#666">n/a</text>"##,
                    x + bar_w * 0.75,
                    y_of(base) - 3.0
                );
                continue;
            }
            let (y0, y1) = (y_of(v).min(y_of(base)), y_of(v).max(y_of(base)));
            let ci = interval(k, g);
            let ci_text = ci.map_or(String::new(), |(l, h)| {
                format!(
                    " (95 % interval {l:.3} to {h:.3}{})",
                    Cuts::said(l, h, floor, ceiling)
                )
            });
            let _ = writeln!(
                s,
                r##"<rect x="{x:.1}" y="{y0:.1}" width="{bar_w}" height="{:.1}" fill="url(#fill{k})" stroke="#333" stroke-width="0.4"><title>{} {}: {v:.3}{ci_text}</title></rect>"##,
                (y1 - y0).max(0.5),
                esc(name),
                esc(sname)
            );
            if let Some((l, h)) = ci {
                let (a, b) = cuts.cut_to(l, h, floor, ceiling);
                whisker(
                    &mut s,
                    x + bar_w / 2.0,
                    (y_of(a.0), a.1),
                    (y_of(b.0), b.1),
                    2.5,
                    "#000",
                );
            }
        }
        let cx = LEFT + gw * (g as f64 + 0.5);
        let _ = writeln!(
            s,
            r#"<text transform="translate({cx:.1},{:.1}) rotate(-45)" text-anchor="end">{}</text>"#,
            TOP + HEIGHT + 14.0,
            esc(name)
        );
    }
    if let Some(r) = reference {
        let y = y_of(r);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#444" stroke-dasharray="5,4"/>"##,
            w - RIGHT
        );
    }
    // Marks: top to bottom, each label above its line, or below it when the label above
    // would overlap; a white halo keeps labels readable over bars.
    let mut marks: Vec<(f64, &String)> = st
        .marks
        .iter()
        .filter(|(v, _)| v.is_finite() && (!log_y || *v > 0.0))
        .map(|(v, l)| (y_of(*v), l))
        .collect();
    marks.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Labels go at the end of the plot whose group of bars is shorter (with its intervals),
    // so they do not run over the bars beside them.
    let tallest = |g: usize| {
        series
            .iter()
            .enumerate()
            .flat_map(|(k, (_, v))| {
                [v.get(g).copied(), interval(k, g).map(|c| c.1)]
                    .into_iter()
                    .flatten()
            })
            .filter(|x| x.is_finite())
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let at_left = !groups.is_empty() && tallest(0) < tallest(groups.len() - 1);
    let (label_x, anchor) = if at_left {
        (LEFT + 3.0, "start")
    } else {
        (w - RIGHT - 3.0, "end")
    };
    let mut last_label = f64::NEG_INFINITY;
    for (y, label) in marks {
        let _ = writeln!(
            s,
            r##"<line class="mark" x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#b2182b" stroke-width="1.2" stroke-dasharray="2,3"/>"##,
            w - RIGHT
        );
        let ty = if y - 3.0 - last_label >= 11.0 {
            y - 3.0
        } else {
            y + 11.0
        };
        last_label = ty;
        let _ = writeln!(
            s,
            r##"<text x="{label_x:.1}" y="{ty:.1}" text-anchor="{anchor}" font-size="10" fill="#b2182b" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text>"##,
            esc(label)
        );
    }
    frame(&mut s, w, h - 8.0 - note_h, x_label);
    legend(&mut s, &names, LEFT, 46.0, false);
    if st.intervals.is_some() {
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10" fill="#444">whiskers: 95 % interval over seeds{}</text>"##,
            w - RIGHT,
            h - 6.0,
            cuts.words(floor, ceiling)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// An interval as a vertical line from `ya` to `yb` at `cx` with caps `half` wide; an end cut
/// at the quantity's range (`.1`) is left open, without its cap.
fn whisker(s: &mut String, cx: f64, a: (f64, bool), b: (f64, bool), half: f64, colour: &str) {
    let ((ya, a_cut), (yb, b_cut)) = (a, b);
    let cap = |y: f64, cut: bool| {
        if cut {
            String::new()
        } else {
            format!(" M{:.1},{y:.1} L{:.1},{y:.1}", cx - half, cx + half)
        }
    };
    let _ = writeln!(
        s,
        r#"<path class="ci" d="M{cx:.1},{ya:.1} L{cx:.1},{yb:.1}{}{}" stroke="{colour}" stroke-width="1"/>"#,
        cap(ya, a_cut),
        cap(yb, b_cut)
    );
}

/// The least a quantity drawn with intervals can be: 0 when none of its values (with the
/// reference and marks) is negative (a time, a ratio, a share), else unbounded. An interval
/// reaching below it is cut there rather than stretching the axis below zero.
fn floor_of(values: &[f64]) -> f64 {
    if values.iter().all(|&v| v >= 0.0) {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// Intervals cut to the quantity's range `[floor, cap]` (a two-seed interval of a share near
/// 100 % reaches past it), counted at each end for the line under the plot that says so.
#[derive(Default)]
struct Cuts {
    low: usize,
    high: usize,
}

impl Cuts {
    /// The interval's ends as drawn (low, high), each with whether it was cut.
    fn cut_to(&mut self, l: f64, h: f64, floor: f64, cap: f64) -> ((f64, bool), (f64, bool)) {
        let (lc, hc) = (l < floor, h > cap);
        self.low += usize::from(lc);
        self.high += usize::from(hc);
        ((l.max(floor), lc), (h.min(cap), hc))
    }

    /// What a bar's tooltip adds for its interval.
    fn said(l: f64, h: f64, floor: f64, cap: f64) -> String {
        match (l < floor, h > cap) {
            (false, false) => String::new(),
            (true, false) => format!(", drawn from {floor}"),
            (false, true) => format!(", drawn to {cap}"),
            (true, true) => format!(", drawn from {floor} to {cap}"),
        }
    }

    /// The whisker legend's addition: how many intervals were cut, where.
    fn words(&self, floor: f64, cap: f64) -> String {
        let n = |k: usize| {
            if k == 1 {
                "1 interval".to_string()
            } else {
                format!("{k} intervals")
            }
        };
        match (self.low, self.high) {
            (0, 0) => String::new(),
            (a, 0) => format!("; {} cut at {floor}, the least the quantity can be (open end)", n(a)),
            (0, b) => format!("; {} cut at {cap}, the most the quantity can be (open end)", n(b)),
            (a, b) => format!(
                "; cut to the quantity's range [{floor}, {cap}]: {} at {floor}, {} at {cap} (open ends)",
                n(a),
                n(b)
            ),
        }
    }
}

/// Named series of (x, y) points, as [`lines`] draws them.
pub type Lines = Vec<(String, Vec<(f64, f64)>)>;

/// Lines over a logarithmic or linear x axis, each with its colour, dash and marker (markers
/// at up to 10 points per line). y fits the data, or is [0, 1] for fractions (CDFs).
pub fn lines(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_x: bool,
) -> String {
    lines_with(
        &LineStyle {
            log_x,
            ..Default::default()
        },
        title,
        x_label,
        y_label,
        series,
    )
}

/// The x ticks of a log axis over data from `lo` to `hi` (both > 0): powers of two when the
/// data are counts (whole numbers: queue lengths, slots) or powers of two (0.5-4 bandwidth
/// ratios) spanning at most 4096x; else [`Axis::fit_log`]'s. Returns (axis start, axis end,
/// ticks), the ends as log10.
fn log_x_ticks(lo: f64, hi: f64, xs: impl Iterator<Item = f64>) -> (f64, f64, Vec<f64>) {
    let pow2 = |x: f64| (x.log2() - x.log2().round()).abs() < 1e-9;
    let (mut all_pow2, mut all_counts) = (true, true);
    for x in xs {
        all_pow2 &= pow2(x);
        all_counts &= x >= 1.0 && x.fract() == 0.0;
    }
    if (all_pow2 || all_counts) && hi / lo <= 4096.0 {
        let (a2, b2) = (
            lo.log2().floor(),
            hi.log2().ceil().max(lo.log2().floor() + 1.0),
        );
        let t = (a2 as i32..=b2 as i32).map(|e| 2f64.powi(e)).collect();
        return (a2 * 2f64.log10(), b2 * 2f64.log10(), t);
    }
    let ax = Axis::fit_log(lo, hi);
    (
        ax.lo,
        ax.hi,
        ax.ticks().into_iter().map(|t| 10f64.powf(t)).collect(),
    )
}

/// How [`lines_with`] draws: 95 % intervals (per series, per point: (low, high) of y, NaN for
/// none) as error bars, a log x axis, the most the quantity can be (`cap`: intervals are cut
/// there, as at 0 for a quantity that cannot be negative, and the cut said), points drawn apart
/// (`flagged`: per series, per point; an open marker off the line, with what it means in
/// words under the plot) and further lines of text under the plot (`notes`).
#[derive(Clone, Copy, Default)]
pub struct LineStyle<'a> {
    pub intervals: Option<&'a [Vec<(f64, f64)>]>,
    pub log_x: bool,
    pub cap: Option<f64>,
    pub flagged: Option<(&'a [Vec<bool>], &'a str)>,
    pub notes: &'a [String],
}

/// The colour of a flagged point's ring (and of bar marks).
const FLAG: &str = "#b2182b";

/// Lines as [`lines`] draws them, styled by `st`.
pub fn lines_with(
    st: &LineStyle,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> String {
    let (intervals, log_x) = (st.intervals, st.log_x);
    let flagged = |k: usize, i: usize| -> bool {
        st.flagged
            .and_then(|(f, _)| f.get(k)?.get(i).copied())
            .unwrap_or(false)
    };
    let below: Vec<String> = (intervals.is_some().then(String::new).into_iter())
        .chain(st.flagged.map(|(_, what)| what.to_string()))
        .chain(st.notes.iter().cloned())
        .collect();
    let w = 720.0;
    let extra = 14.0 * below.len().saturating_sub(1) as f64;
    let h = TOP + HEIGHT + 60.0 + extra;
    let ok = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite() && (!log_x || p.0 > 0.0);
    let ci = |k: usize, i: usize| -> Option<(f64, f64)> {
        let (lo, hi) = *intervals?.get(k)?.get(i)?;
        (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
    };
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut ylo, mut yhi) = (f64::INFINITY, f64::NEG_INFINITY);
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|(_, p)| p.iter())
        .filter(ok)
        .map(|p| p.1)
        .collect();
    let floor = floor_of(&ys);
    let cap = st.cap.unwrap_or(f64::INFINITY);
    let mut cuts = Cuts::default();
    for (k, (_, pts)) in series.iter().enumerate() {
        for (i, p) in pts.iter().enumerate() {
            if !ok(&p) {
                continue;
            }
            lo = lo.min(p.0);
            hi = hi.max(p.0);
            ylo = ylo.min(p.1);
            yhi = yhi.max(p.1);
            if let Some((l, h)) = ci(k, i) {
                ylo = ylo.min(l.max(floor));
                yhi = yhi.max(h.min(cap));
            }
        }
    }
    if !lo.is_finite() {
        (lo, hi, ylo, yhi) = (1.0, 10.0, 0.0, 1.0);
    }
    let (a, b, xticks): (f64, f64, Vec<f64>) = if log_x {
        let xs = series
            .iter()
            .flat_map(|(_, p)| p.iter())
            .filter(ok)
            .map(|p| p.0);
        log_x_ticks(lo, hi, xs)
    } else {
        let ax = Axis::fit(lo, hi, lo >= 0.0);
        (ax.lo, ax.hi, ax.ticks())
    };
    // Linear ticks print with the axis's own decimals; log ticks as round numbers.
    let x_axis = (!log_x).then(|| Axis::fit(lo, hi, lo >= 0.0));
    // Clamped at the axis start (not the data's minimum: a tick below the data, such as
    // the 0.1 of data from 0.5, was drawn at the minimum's place).
    let tx = |x: f64| {
        if log_x {
            x.max(10f64.powf(a)).log10()
        } else {
            x
        }
    };
    let plot_w = w - LEFT - RIGHT;
    let px = |x: f64| LEFT + plot_w * (tx(x) - a) / (b - a);
    let fraction = ylo >= 0.0 && yhi <= 1.0 && y_label.contains("fraction");
    let ax = if fraction {
        Axis {
            lo: 0.0,
            hi: 1.0,
            step: 0.2,
            decimals: 1,
            log: false,
            log125: false,
        }
    } else {
        Axis::fit(ylo, yhi, false)
    };
    let py = |y: f64| TOP + HEIGHT * (1.0 - ax.frac(y));
    let mut s = header(w, h, title);
    y_axis(&mut s, w, &ax, y_label);
    for t in xticks {
        let x = px(t);
        let label = x_axis.map_or_else(|| log_label(t), |ax| ax.label(t));
        // A label centred on the last tick that would run off the right edge ends there.
        let anchor = if x + label.len() as f64 * CHAR_W / 2.0 > w - 2.0 {
            "end"
        } else {
            "middle"
        };
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{:.1}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="{anchor}">{label}</text>"##,
            TOP + HEIGHT,
            TOP + HEIGHT + 16.0,
        );
    }
    frame(&mut s, w, TOP + HEIGHT + 38.0, x_label);
    for (k, (name, pts)) in series.iter().enumerate() {
        let c = color(name, k);
        let kept: Vec<(usize, &(f64, f64))> = pts.iter().enumerate().filter(|p| ok(&p.1)).collect();
        let mut d = String::new();
        for (i, &(_, &(x, y))) in kept.iter().filter(|p| !flagged(k, p.0)).enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if i == 0 { "M" } else { "L" },
                px(x),
                py(y)
            );
        }
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="none" stroke="{c}" stroke-width="1.8" stroke-dasharray="{}"/>"#,
            dash(slot(name, k))
        );
        for &(i, &(x, _)) in &kept {
            if let Some((l, h)) = ci(k, i) {
                let (lo, hi) = cuts.cut_to(l, h, floor, cap);
                whisker(&mut s, px(x), (py(lo.0), lo.1), (py(hi.0), hi.1), 3.0, c);
            }
        }
        let on_line: Vec<&(usize, &(f64, f64))> =
            kept.iter().filter(|p| !flagged(k, p.0)).collect();
        let every = on_line.len().div_ceil(10).max(1);
        // Offset per series so markers of overlapping lines do not hide each other.
        for &&(_, &(x, y)) in on_line.iter().skip(k % every).step_by(every) {
            s.push_str(&marker(slot(name, k), px(x), py(y), c));
        }
        // A flagged point: off the line, its marker ringed, every one drawn.
        for &(_, &(x, y)) in kept.iter().filter(|p| flagged(k, p.0)) {
            s.push_str(&marker(slot(name, k), px(x), py(y), c));
            let _ = write!(
                s,
                r##"<circle class="flagged" cx="{:.1}" cy="{:.1}" r="7" fill="none" stroke="{FLAG}" stroke-width="1.5"/>"##,
                px(x),
                py(y)
            );
        }
        s.push('\n');
    }
    let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
    legend(&mut s, &names, LEFT, 46.0, true);
    for (i, line) in below.iter().enumerate() {
        let text = if i == 0 && intervals.is_some() {
            format!("bars: 95 % interval over seeds{}", cuts.words(floor, cap))
        } else {
            esc(line)
        };
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10" fill="#444">{text}</text>"##,
            w - RIGHT,
            h - 4.0 - extra + 14.0 * i as f64
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Busy fraction 0..1 as a colour from pale yellow to dark red (ColorBrewer YlOrRd).
fn heat(u: f64) -> String {
    const STOPS: [(f64, [f64; 3]); 4] = [
        (0.0, [255.0, 255.0, 204.0]),
        (0.33, [254.0, 178.0, 76.0]),
        (0.66, [240.0, 59.0, 32.0]),
        (1.0, [128.0, 0.0, 38.0]),
    ];
    let u = if u.is_finite() {
        u.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let i = STOPS.iter().position(|s| s.0 >= u).unwrap_or(3).max(1);
    let (a, b) = (STOPS[i - 1], STOPS[i]);
    let t = (u - a.0) / (b.0 - a.0);
    let c: Vec<u8> = (0..3)
        .map(|k| (a.1[k] + t * (b.1[k] - a.1[k])).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// A mesh of `rows` × `cols` routers (row-major ids, row 0 on top) with each link drawn in the
/// colour of its busy fraction, and the controllers on the left edge with theirs.
pub fn mesh_heatmap(
    title: &str,
    rows: u32,
    cols: u32,
    links: &[(u32, u32)],
    link_util: &[f64],
    controllers: &[(u32, f64)],
) -> String {
    let gap = (560.0 / cols.max(rows) as f64).clamp(14.0, 60.0);
    let (x0, y0) = (110.0, 70.0);
    let w = x0 + gap * cols as f64 + 170.0;
    let h = y0 + gap * rows as f64 + 40.0;
    let pos = |r: u32| (x0 + gap * (r % cols) as f64, y0 + gap * (r / cols) as f64);
    let mut s = header(w.max(9.5 * title.chars().count() as f64 + 40.0), h, title);
    let stroke = (gap / 6.0).clamp(2.0, 8.0);
    for (i, &(a, b)) in links.iter().enumerate() {
        let u = link_util.get(i).copied().unwrap_or(f64::NAN);
        let ((xa, ya), (xb, yb)) = (pos(a), pos(b));
        let _ = writeln!(
            s,
            r#"<line x1="{xa:.1}" y1="{ya:.1}" x2="{xb:.1}" y2="{yb:.1}" stroke="{}" stroke-width="{stroke:.1}"><title>link {i} ({a}-{b}): {:.1} % busy</title></line>"#,
            heat(u),
            100.0 * u
        );
    }
    let rad = (gap / 8.0).clamp(1.5, 5.0);
    for r in 0..rows * cols {
        let (x, y) = pos(r);
        let _ = writeln!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{rad:.1}" fill="#555"/>"##
        );
    }
    for (i, &(r, u)) in controllers.iter().enumerate() {
        let (x, y) = pos(r);
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{y:.1}" x2="{x:.1}" y2="{y:.1}" stroke="#999" stroke-dasharray="3,2"/><rect x="{:.1}" y="{:.1}" width="34" height="14" fill="{}" stroke="#333"><title>FC{i}: {:.1} % busy</title></rect><text x="{:.1}" y="{:.1}" font-size="10">FC{i}</text>"##,
            x - 40.0,
            x - 80.0,
            y - 7.0,
            heat(u),
            100.0 * u,
            x - 105.0,
            y + 4.0
        );
    }
    // colour scale with ticks every 25 %
    let lx = x0 + gap * cols as f64 + 40.0;
    for k in 0..=20 {
        let u = k as f64 / 20.0;
        let y = y0 + 6.0 * (20 - k) as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="{y:.1}" width="16" height="6" fill="{}"/>"#,
            heat(u)
        );
    }
    for k in 0..=4 {
        let y = y0 + 6.0 * (20 - 5 * k) as f64 + 3.0;
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#000"/><text x="{:.1}" y="{:.1}">{} %</text>"##,
            lx + 16.0,
            lx + 20.0,
            lx + 23.0,
            y + 4.0,
            25 * k
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{lx:.1}" y="{:.1}">busy time</text>"#,
        y0 - 8.0
    );
    s.push_str("</svg>\n");
    s
}

/// `v` with a k or M suffix where that reads at a glance (2.5k, 10M); a number such as 1024
/// (a power of two in bytes) stays whole rather than becoming 1.024k.
fn fmt_num(v: f64) -> String {
    let short = |unit: f64| (v / unit * 10.0).fract() == 0.0;
    if v >= 1e6 && short(1e6) {
        format!("{}M", v / 1e6)
    } else if v >= 1e3 && short(1e3) {
        format!("{}k", v / 1e3)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_numbers_take_a_suffix_only_when_it_reads_short() {
        let got: Vec<String> = [512.0, 1024.0, 2500.0, 4096.0, 10_000.0, 2e6, 1_048_576.0]
            .iter()
            .map(|&v| fmt_num(v))
            .collect();
        assert_eq!(got, ["512", "1024", "2.5k", "4096", "10k", "2M", "1048576"]);
    }

    #[test]
    fn a_log_x_axis_fits_powers_of_two_below_one() {
        let pts = vec![(0.5, 1.0), (1.0, 2.0), (4.0, 3.0)];
        let svg = lines("t", "x", "y", &[("a".into(), pts)], true);
        // Powers of two 0.5..4 (not the decades 0.1..10): 0.5 at the left edge, 1 a third in.
        assert!(
            svg.contains(&format!(
                r#"<text x="{LEFT:.1}" y="{:.1}" text-anchor="middle">0.5</text>"#,
                TOP + HEIGHT + 16.0
            )),
            "{svg}"
        );
        let third = LEFT + (720.0 - LEFT - RIGHT) / 3.0;
        assert!(
            svg.contains(&format!(
                r#"<text x="{third:.1}" y="{:.1}" text-anchor="middle">1</text>"#,
                TOP + HEIGHT + 16.0
            )),
            "{svg}"
        );
        assert!(
            !svg.contains(">0.1</text>") && !svg.contains(">10</text>"),
            "{svg}"
        );
    }

    /// Counts on a log axis (PIQ's 1-32 device slots, 3 and 5 among them) take power-of-two
    /// ticks, so the axis ends at 32, not at the next decade.
    #[test]
    fn integer_log_x_data_take_power_of_two_ticks() {
        let pts = [1.0, 3.0, 5.0, 12.0, 32.0].map(|x| (x, 1.0)).to_vec();
        let svg = lines("t", "x", "y", &[("a".into(), pts)], true);
        let y = TOP + HEIGHT + 16.0;
        let step = (720.0 - LEFT - RIGHT) / 5.0;
        for (i, t) in ["1", "2", "4", "8", "16", "32"].iter().enumerate() {
            let x = LEFT + step * i as f64;
            assert!(
                svg.contains(&format!(r#"<text x="{x:.1}" y="{y:.1}""#)),
                "{t}: {svg}"
            );
            assert!(svg.contains(&format!(">{t}</text>")), "{t}");
        }
        assert!(
            !svg.contains(">100</text>") && !svg.contains(">10</text>"),
            "{svg}"
        );
    }

    /// Fig. 14(c)'s 131072 at the right edge: a long last label ends at its tick instead of
    /// running past the drawing; a short one stays centred.
    #[test]
    fn a_long_last_x_label_ends_at_its_tick() {
        let right = 720.0 - RIGHT;
        let y = TOP + HEIGHT + 16.0;
        for (first, last, anchor) in [(1024.0, 131072.0, "end"), (1.0, 64.0, "middle")] {
            let svg = lines(
                "t",
                "x",
                "y",
                &[("a".into(), vec![(first, 1.0), (last, 2.0)])],
                true,
            );
            assert!(
                svg.contains(&format!(
                    r#"<text x="{right:.1}" y="{y:.1}" text-anchor="{anchor}">{last}</text>"#
                )),
                "{svg}"
            );
        }
    }

    /// Data within two and a half decades get a 1-2-5 axis that ends where they do (dSSD
    /// Fig. 13a's 0.3-3.3 GB/s were drawn on 0.1-10).
    #[test]
    fn a_short_log_axis_takes_one_two_five_ticks_around_the_data() {
        let ax = Axis::fit_log(0.28, 3.32);
        let labels: Vec<String> = ax.ticks().iter().map(|&t| ax.label(t)).collect();
        assert_eq!(labels, ["0.2", "0.5", "1", "2", "5"]);
        let ax = Axis::fit_log(0.995, 4.57);
        let labels: Vec<String> = ax.ticks().iter().map(|&t| ax.label(t)).collect();
        assert_eq!(labels, ["0.5", "1", "2", "5"]);
        let pts = vec![(0.5, 1.0), (1.0, 2.0), (2.0, 2.5), (4.0, 3.0)];
        let svg = lines("t", "x", "y", &[("a".into(), pts)], true);
        assert!(
            svg.contains(">4</text>") && !svg.contains(">10</text>"),
            "{svg}"
        );
        let pts = vec![(0.3, 1.0), (3.0, 2.0)];
        let svg = lines("t", "x", "y", &[("a".into(), pts)], true);
        assert!(
            svg.contains(">0.2</text>") && svg.contains(">5</text>"),
            "{svg}"
        );
        assert!(
            !svg.contains(">0.1</text>") && !svg.contains(">10</text>"),
            "{svg}"
        );
    }

    /// Bars on a log axis from a reference: values below it grow down from it (superblocks
    /// Fig. 14b's endurance ratios, 0.99 to 5).
    #[test]
    fn log_bars_grow_from_their_reference() {
        let st = BarStyle {
            reference: Some(1.0),
            log_y: true,
            intervals: Some(vec![vec![(0.9, 1.1), (f64::NAN, f64::NAN)]]),
            marks: Vec::new(),
            cap: None,
        };
        let svg = bars_with(
            &st,
            "t",
            "x",
            "y",
            &["a".into(), "b".into()],
            &[("s".into(), vec![0.995, 4.57])],
        );
        assert!(!svg.contains(">0.1</text>"), "{svg}");
        assert_eq!(svg.matches(r#"class="ci""#).count(), 1, "{svg}");
        assert!(svg.contains("95 % interval 0.900 to 1.100"), "{svg}");
    }

    /// Marks are labelled dotted lines inside the axis (bars still grow from zero); close
    /// marks keep their labels apart; a cap cuts intervals at the most a value can be.
    #[test]
    fn marks_are_labelled_lines_and_a_cap_cuts_intervals() {
        let st = BarStyle {
            intervals: Some(vec![vec![(0.2, 1.7), (0.1, 0.3)]]),
            marks: vec![(0.352, "reads".into()), (0.362, "writes".into())],
            cap: Some(1.0),
            ..Default::default()
        };
        let svg = bars_with(
            &st,
            "t",
            "x",
            "y",
            &["a".into(), "b".into()],
            &[("s".into(), vec![0.9, 0.2])],
        );
        assert_eq!(svg.matches(r#"class="mark""#).count(), 2, "{svg}");
        assert!(svg.contains(">reads</text>") && svg.contains(">writes</text>"));
        // the axis stops at 1 (the interval's 1.7 is cut), not 2
        assert!(
            svg.contains(">1.0</text>") && !svg.contains(">2.0</text>"),
            "{svg}"
        );
        let label_y = |l: &str| -> f64 {
            let i = svg.find(&format!(">{l}</text>")).unwrap();
            let t = &svg[svg[..i].rfind("<text").unwrap()..i];
            let y = &t[t.find(" y=\"").unwrap() + 4..];
            y[..y.find('"').unwrap()].parse().unwrap()
        };
        assert!(
            (label_y("reads") - label_y("writes")).abs() >= 11.0,
            "{svg}"
        );
    }

    #[test]
    fn log_axis_covers_whole_decades_and_labels_them() {
        let ax = Axis::fit_log(0.003, 250.0);
        assert_eq!((ax.lo, ax.hi), (-3.0, 3.0));
        let labels: Vec<String> = ax.ticks().iter().map(|&t| ax.label(t)).collect();
        assert_eq!(labels, ["0.001", "0.01", "0.1", "1", "10", "100", "1k"]);
        assert!((ax.frac(ax.pos(1.0)) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn bars_draw_one_rect_per_finite_value_and_mark_missing_ones() {
        let svg = bars(
            "t",
            "workload",
            "y",
            &["a".into(), "b".into()],
            &[
                ("x".into(), vec![1.0, 2.0]),
                ("z".into(), vec![0.5, f64::NAN]),
            ],
            Some(1.0),
        );
        // 3 bars, 2 legend swatches, 2 pattern tiles, background
        assert_eq!(svg.matches("<rect").count(), 3 + 2 + 2 + 1);
        assert_eq!(svg.matches(">n/a</text>").count(), 1);
        assert!(
            svg.contains("stroke-dasharray=\"5,4\""),
            "reference line at 1.0"
        );
        assert!(svg.contains(">workload</text>"), "x-axis label");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }

    /// Ratio data within 0.9-1.1 get an axis that shows the differences (not 0-2).
    #[test]
    fn axes_fit_the_data_with_uniform_decimals() {
        let ax = Axis::fit(0.92, 1.08, false);
        assert!(
            ax.lo >= 0.85 && ax.lo <= 0.92 && ax.hi >= 1.08 && ax.hi <= 1.15,
            "{ax:?}"
        );
        let labels: Vec<String> = ax.ticks().iter().map(|&v| ax.label(v)).collect();
        assert!(
            labels.iter().all(|l| l.len() == labels[0].len()),
            "{labels:?}"
        );
        assert!((4..=9).contains(&labels.len()), "{labels:?}");
        let ax = Axis::fit(0.0, 23.0, true);
        assert_eq!((ax.lo, ax.hi, ax.step, ax.decimals), (0.0, 25.0, 5.0, 0));
        let ax = Axis::fit(0.0, 0.9, true);
        assert_eq!(ax.label(0.0), "0.0");
        assert_eq!(ax.label(0.2), "0.2");
        let ax = Axis::fit(0.0, 2.3, true);
        assert_eq!((ax.step, ax.decimals), (0.5, 1));
        let ax = Axis::fit(0.0, 1.1, true);
        assert_eq!((ax.step, ax.decimals), (0.25, 2));
    }

    #[test]
    fn lines_differ_by_dash_and_marker_as_well_as_colour() {
        let pts = |k: f64| (1..=9).map(|i| (2f64.powi(i), k + i as f64)).collect();
        let svg = lines(
            "t",
            "queue length (log2)",
            "latency (us)",
            &[("noop".into(), pts(0.0)), ("rws".into(), pts(0.0))],
            true,
        );
        assert!(svg.contains("stroke-dasharray=\"7,3\""));
        // 9 markers each: circles for the first series, squares for the second, plus legend
        assert_eq!(svg.matches("<circle").count(), 9 + 1);
        assert!(svg.contains(">512</text>"), "powers-of-two ticks");
        // A linear x axis from 0 with labels of its own decimals (no 0.6000000000000001).
        let svg = lines(
            "t",
            "offered load",
            "latency",
            &[("a".into(), vec![(0.05, 30.0), (0.6, 50.0)])],
            false,
        );
        assert!(
            svg.contains(">0.0</text>") && svg.contains(">0.6</text>"),
            "{svg}"
        );
        assert!(!svg.contains("0.6000"), "{svg}");
    }

    #[test]
    fn heatmap_draws_every_link_and_controller() {
        let svg = mesh_heatmap(
            "t",
            2,
            2,
            &[(0, 1), (2, 3), (0, 2), (1, 3)],
            &[0.0, 0.5, 1.0, 0.25],
            &[(0, 0.9), (2, 0.1)],
        );
        assert_eq!(svg.matches("% busy</title></line>").count(), 4);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("FC1"));
        for t in ["0 %", "25 %", "50 %", "75 %", "100 %"] {
            assert!(svg.contains(&format!(">{t}</text>")), "colour-bar tick {t}");
        }
        assert_eq!(heat(0.0), "#ffffcc");
        assert_eq!(heat(1.0), "#800026");
    }

    #[test]
    fn lines_draw_one_path_per_series() {
        let svg = lines(
            "cdf",
            "latency",
            "fraction",
            &[
                ("a".into(), vec![(10.0, 0.1), (100.0, 1.0)]),
                ("b".into(), vec![(20.0, 0.5), (200.0, 1.0)]),
            ],
            true,
        );
        assert_eq!(svg.matches("<path").count(), 2);
    }
}

/// One row of [`ranges`]: a reachable range, a value on it (as built) and a target (the
/// paper's value).
#[derive(Clone, Debug)]
pub struct Range {
    pub label: String,
    pub low: f64,
    pub high: f64,
    pub mark: f64,
    pub target: f64,
}

/// One row per item, the x axis shared: a bar from `low` to `high`, a dot at `mark`, a
/// diamond at `target`; with a `reference` a dashed line there (1 for ratios). A log axis when
/// every value is positive and they span more than a decade and a half.
/// `cap`: the largest value the quantity can take (100 for a percentage of requests): the axis
/// does not run past it.
pub fn ranges(
    title: &str,
    x_label: &str,
    rows: &[Range],
    reference: Option<f64>,
    cap: Option<f64>,
) -> String {
    let vals: Vec<f64> = rows
        .iter()
        .flat_map(|r| [r.low, r.high, r.mark, r.target])
        .chain(reference)
        .filter(|v| v.is_finite())
        .collect();
    let (lo, hi) = vals
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    let log = lo > 0.0 && hi / lo > 30.0;
    let mut ax = if log {
        Axis::fit_log(lo, hi)
    } else {
        Axis::fit(lo, hi, false)
    };
    if let Some(c) = cap.filter(|&c| !log && ax.hi > c && hi <= c) {
        ax.hi = c;
    }
    let label_w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0) as f64
        * 7.0
        + 16.0;
    let (left, plot_w, row_h) = (label_w.max(LEFT), 520.0, 18.0);
    let w = (left + plot_w + RIGHT).max(9.5 * title.chars().count() as f64 + 40.0);
    let plot_h = row_h * rows.len().max(1) as f64;
    let h = TOP + plot_h + 78.0;
    let x_of = |v: f64| left + plot_w * ax.frac(ax.pos(v));
    let mut s = header(w, h, title);
    for t in ax.ticks() {
        let x = left + plot_w * ax.frac(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + plot_h,
            TOP + plot_h + 16.0,
            ax.label(t)
        );
    }
    if let Some(r) = reference {
        let x = x_of(r);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{:.1}" stroke="#444" stroke-dasharray="5,4"/>"##,
            TOP + plot_h
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + row_h * (i as f64 + 0.5);
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 8.0,
            y + 4.0,
            esc(&r.label)
        );
        if r.low.is_finite() && r.high.is_finite() {
            let (a, b) = (x_of(r.low), x_of(r.high));
            let _ = writeln!(
                s,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="8" fill="#56B4E9" stroke="#0072B2" stroke-width="0.6"><title>{}: {:.4} to {:.4}</title></rect>"##,
                a.min(b) - 1.0,
                y - 4.0,
                (b - a).abs() + 2.0,
                esc(&r.label),
                r.low,
                r.high
            );
        }
        if r.mark.is_finite() {
            let _ = writeln!(
                s,
                r##"<circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="#000"><title>as built: {:.4}</title></circle>"##,
                x_of(r.mark),
                r.mark
            );
        }
        if r.target.is_finite() {
            let x = x_of(r.target);
            let _ = writeln!(
                s,
                r##"<path d="M{x:.1},{:.1} L{:.1},{y:.1} L{x:.1},{:.1} L{:.1},{y:.1} Z" fill="#D55E00" stroke="#000" stroke-width="0.5"><title>paper: {:.4}</title></path>"##,
                y - 6.0,
                x + 6.0,
                y + 6.0,
                x - 6.0,
                r.target
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<rect x="{left:.1}" y="{TOP}" width="{plot_w:.1}" height="{plot_h:.1}" fill="none" stroke="#333"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
        left + plot_w / 2.0,
        TOP + plot_h + 36.0,
        esc(x_label)
    );
    // Legend: range bar, as-built dot, paper's diamond.
    let ly = TOP + plot_h + 60.0;
    let _ = writeln!(
        s,
        r##"<rect x="{left:.1}" y="{:.1}" width="24" height="8" fill="#56B4E9" stroke="#0072B2" stroke-width="0.6"/><text x="{:.1}" y="{ly:.1}">range the readings reach</text><circle cx="{:.1}" cy="{:.1}" r="3.5" fill="#000"/><text x="{:.1}" y="{ly:.1}">as built</text><path d="M{:.1},{:.1} l6,6 l-6,6 l-6,-6 Z" fill="#D55E00" stroke="#000" stroke-width="0.5"/><text x="{:.1}" y="{ly:.1}">the paper's value</text>"##,
        ly - 8.0,
        left + 30.0,
        left + 210.0,
        ly - 4.0,
        left + 220.0,
        left + 300.0,
        ly - 10.0,
        left + 310.0
    );
    s.push_str("</svg>\n");
    s
}
