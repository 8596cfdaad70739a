//! Small, dependency-free SVG charts for result figures: grouped bars (one group per workload,
//! one bar per design) and lines (latency CDFs). Text is real SVG text, so figures stay
//! searchable and crisp at any size.

use std::fmt::Write;

/// One colour per series, in series order (colour-blind-safe Okabe-Ito palette).
const PALETTE: [&str; 8] = [
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442",
];

/// The same design keeps its colour in every figure.
fn color(name: &str, i: usize) -> &'static str {
    match name {
        "baseline" => PALETTE[0],
        "pssd" => PALETTE[1],
        "pnssd" => PALETTE[2],
        "nossd" => PALETTE[3],
        "venice" => PALETTE[5],
        "ideal" => PALETTE[4],
        _ => PALETTE[i % PALETTE.len()],
    }
}

const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 110.0;
const HEIGHT: f64 = 300.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A round upper bound for an axis and its tick step.
fn nice_max(v: f64) -> (f64, f64) {
    let v = if v.is_finite() && v > 0.0 { v } else { 1.0 };
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * mag >= v {
            let top = m * mag;
            return (top, top / 5.0);
        }
    }
    (10.0 * mag, 2.0 * mag)
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

fn legend(s: &mut String, names: &[String], x0: f64, y: f64) {
    let mut x = x0;
    for (i, n) in names.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            y - 10.0,
            color(n, i),
            x + 16.0,
            y,
            esc(n)
        );
        x += 28.0 + 7.0 * n.len() as f64;
    }
}

fn y_axis(s: &mut String, w: f64, top: f64, step: f64, label: &str, fmt: impl Fn(f64) -> String) {
    let mut v = 0.0;
    while v <= top + step * 1e-9 {
        let y = TOP + HEIGHT * (1.0 - v / top);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            w - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            fmt(v)
        );
        v += step;
    }
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + HEIGHT / 2.0,
        esc(label)
    );
}

/// Grouped bars: `groups` along x, one bar per series in each group. `reference` draws a
/// dashed horizontal line (e.g. 1.0 for "same as baseline").
pub fn bars(
    title: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
    reference: Option<f64>,
) -> String {
    let per_group = series.len().max(1) as f64;
    let bar_w = 9.0;
    let group_w = per_group * bar_w + 12.0;
    // wide enough for every group and for the title (~9.5 px per bold 15 px character)
    let w = (LEFT + RIGHT + group_w * groups.len() as f64)
        .max(560.0)
        .max(9.5 * title.chars().count() as f64 + 40.0);
    let h = TOP + HEIGHT + BOTTOM;
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .chain(reference)
        .fold(0.0, f64::max);
    let (top, step) = nice_max(max);
    let mut s = header(w, h, title);
    y_axis(&mut s, w, top, step, y_label, tick);
    let plot_w = w - LEFT - RIGHT;
    let gw = plot_w / groups.len().max(1) as f64;
    for (g, name) in groups.iter().enumerate() {
        let x0 = LEFT + gw * g as f64 + (gw - per_group * bar_w) / 2.0;
        for (k, (sname, vals)) in series.iter().enumerate() {
            let v = vals.get(g).copied().unwrap_or(f64::NAN);
            if !v.is_finite() {
                continue;
            }
            let bh = HEIGHT * (v / top).clamp(0.0, 1.0);
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{bar_w}" height="{bh:.1}" fill="{}"><title>{} {}: {v:.3}</title></rect>"#,
                x0 + bar_w * k as f64,
                TOP + HEIGHT - bh,
                color(sname, k),
                esc(name),
                esc(sname)
            );
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
        let y = TOP + HEIGHT * (1.0 - r / top);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#444" stroke-dasharray="5,4"/>"##,
            w - RIGHT
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{:.1}" stroke="#000"/><line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#000"/>"##,
        TOP + HEIGHT,
        w - RIGHT,
        TOP + HEIGHT,
        TOP + HEIGHT
    );
    let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
    legend(&mut s, &names, LEFT, 46.0);
    s.push_str("</svg>\n");
    s
}

/// Lines over a logarithmic or linear x axis; y in [0, 1] when `unit_y` (CDFs).
pub fn lines(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_x: bool,
) -> String {
    let w = 720.0;
    let h = TOP + HEIGHT + 60.0;
    let xs = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in xs.filter(|x| x.is_finite() && (!log_x || *x > 0.0)) {
        lo = lo.min(x);
        hi = hi.max(x);
    }
    if !lo.is_finite() {
        (lo, hi) = (1.0, 10.0);
    }
    let tx = |x: f64| if log_x { x.max(lo).log10() } else { x };
    let (a, b) = if log_x {
        (
            lo.log10().floor(),
            hi.log10().ceil().max(lo.log10().floor() + 1.0),
        )
    } else {
        (0.0, nice_max(hi).0)
    };
    let plot_w = w - LEFT - RIGHT;
    let px = |x: f64| LEFT + plot_w * (tx(x) - a) / (b - a);
    let y_top = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0, f64::max);
    let (top, step) = if y_top <= 1.0 {
        (1.0, 0.2)
    } else {
        nice_max(y_top)
    };
    let py = |y: f64| TOP + HEIGHT * (1.0 - y / top);
    let mut s = header(w, h, title);
    y_axis(&mut s, w, top, step, y_label, tick);
    // x ticks: decades on a log axis, fifths on a linear one
    let ticks: Vec<f64> = if log_x {
        (a as i32..=b as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5).map(|i| b * i as f64 / 5.0).collect()
    };
    for t in ticks {
        let x = if log_x {
            LEFT + plot_w * (t.log10() - a) / (b - a)
        } else {
            px(t)
        };
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{:.1}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + HEIGHT,
            TOP + HEIGHT + 16.0,
            fmt_num(t)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + plot_w / 2.0,
        TOP + HEIGHT + 38.0,
        esc(x_label)
    );
    for (k, (name, pts)) in series.iter().enumerate() {
        let mut d = String::new();
        for (i, &(x, y)) in pts
            .iter()
            .filter(|p| p.0.is_finite() && (!log_x || p.0 > 0.0))
            .enumerate()
        {
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
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="1.8"/>"#,
            color(name, k)
        );
    }
    let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
    legend(&mut s, &names, LEFT, 46.0);
    s.push_str("</svg>\n");
    s
}

/// A y tick label short enough to stay clear of the axis title.
fn tick(v: f64) -> String {
    if v >= 1000.0 {
        fmt_num(v)
    } else if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
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
    // colour scale
    let lx = x0 + gap * cols as f64 + 40.0;
    for k in 0..=10 {
        let u = k as f64 / 10.0;
        let y = y0 + 10.0 * (10 - k) as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="{y:.1}" width="16" height="10" fill="{}"/>"#,
            heat(u)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}">100 % busy</text><text x="{:.1}" y="{:.1}">0 %</text>"#,
        lx + 20.0,
        y0 + 9.0,
        lx + 20.0,
        y0 + 109.0
    );
    s.push_str("</svg>\n");
    s
}

fn fmt_num(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{}k", v / 1e3)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_draw_one_rect_per_finite_value() {
        let svg = bars(
            "t",
            "y",
            &["a".into(), "b".into()],
            &[
                ("x".into(), vec![1.0, 2.0]),
                ("z".into(), vec![0.5, f64::NAN]),
            ],
            Some(1.0),
        );
        // 3 bars + 2 legend swatches + background
        assert_eq!(svg.matches("<rect").count(), 3 + 2 + 1);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
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
        assert_eq!(heat(0.0), "#ffffcc");
        assert_eq!(heat(1.0), "#800026");
    }

    #[test]
    fn nice_axis_bounds() {
        assert_eq!(nice_max(3.7), (5.0, 1.0));
        assert_eq!(nice_max(1.0), (1.0, 0.2));
        assert_eq!(nice_max(0.0), (1.0, 0.2));
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
