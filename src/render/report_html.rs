//! `cutover report --html FILE`: one self-contained page (no external URL anywhere: styles, script
//! and charts inline; charts are hand-written SVG). Captured SQL and every other text from the
//! inputs is untrusted: it goes through [`esc`] (HTML text and attributes) and never into the script.

use crate::report::{GoNoGoReport, Status};
use std::fmt::Write as _;
use std::io::{self, Write};

/// HTML text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{padding:18px 28px;color:#fff}
header.go{background:#1e7d3a}header.go-with-waivers{background:#4d7d1e}header.no-go{background:#b3261e}
header h1{margin:0;font-size:28px}main{padding:8px 28px 40px}
nav a{margin-right:14px;color:#fff}
section{background:#fff;border-radius:6px;padding:12px 18px;margin:16px 0;box-shadow:0 1px 2px #0002}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #e3e6ea;padding:4px 6px;text-align:left;vertical-align:top}
th{cursor:pointer;background:#f0f2f5;user-select:none}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap;word-break:break-all}
.st{font-weight:600;padding:1px 6px;border-radius:3px;color:#fff}
.pass{background:#1e7d3a}.warn{background:#b8860b}.waived{background:#4d7d1e}.vacuous{background:#7b3fa0}.not-run{background:#6b7280}.fail{background:#b3261e}
input.filter{margin:6px 0;padding:4px;width:320px}
del{background:#fbd0cd;text-decoration:line-through}ins{background:#cdeccf;text-decoration:none}
svg text{font-size:11px;fill:#1d2433}.charts{display:flex;flex-wrap:wrap;gap:18px}
"#;

/// Sorting and filtering of every table with class `data`, without a network.
const SCRIPT: &str = r#"
document.querySelectorAll('table.data').forEach(function(t){
  var f=document.createElement('input');f.className='filter';f.placeholder='filter rows';
  t.parentNode.insertBefore(f,t);
  f.addEventListener('input',function(){var q=f.value.toLowerCase();
    t.querySelectorAll('tbody tr').forEach(function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';});});
  t.querySelectorAll('th').forEach(function(th,i){var asc=true;th.addEventListener('click',function(){
    var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);
    rows.sort(function(x,y){var a=x.cells[i].getAttribute('data-v')||x.cells[i].textContent,c=y.cells[i].getAttribute('data-v')||y.cells[i].textContent;
      var na=parseFloat(a),nc=parseFloat(c);var r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return asc?r:-r;});
    asc=!asc;rows.forEach(function(r){b.appendChild(r);});});});
});
document.body.setAttribute('data-ready','1');
"#;

fn st(s: Status) -> String {
    format!(r#"<span class="st {0}">{0}</span>"#, s.name())
}

fn color(s: Status) -> &'static str {
    match s {
        Status::Pass => "#1e7d3a",
        Status::Warn => "#b8860b",
        Status::Waived => "#4d7d1e",
        Status::Vacuous => "#7b3fa0",
        Status::NotRun => "#6b7280",
        Status::Fail => "#b3261e",
    }
}

/// Horizontal bars: (label, value, optional interval, colour); a vertical reference line at `mark`.
fn bars(title: &str, rows: &[(String, f64, Option<[f64; 2]>, &str)], mark: Option<f64>) -> String {
    let h = 22 * rows.len().max(1) + 40;
    let max = rows
        .iter()
        .map(|r| r.2.map(|c| c[1]).unwrap_or(r.1).max(r.1))
        .chain(mark)
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    let (x0, w) = (200.0, 360.0);
    let x = |v: f64| x0 + (v / max).clamp(0.0, 1.0) * w;
    let mut s = format!(
        r#"<svg class="chart" role="img" width="600" height="{h}" viewBox="0 0 600 {h}" xmlns="http://www.w3.org/2000/svg"><title>{}</title><text x="4" y="14" font-weight="600">{}</text>"#,
        esc(title),
        esc(title)
    );
    for (i, (label, v, ci, col)) in rows.iter().enumerate() {
        let y = 26 + i * 22;
        let short: String = label.chars().take(30).collect();
        let _ = write!(
            s,
            r#"<text x="4" y="{}">{}</text><rect x="{x0}" y="{y}" width="{:.1}" height="14" fill="{col}"><title>{}: {v:.3}</title></rect><text x="{:.1}" y="{}">{}</text>"#,
            y + 11,
            esc(&short),
            (x(*v) - x0).max(0.5),
            esc(label),
            x(*v) + 4.0,
            y + 11,
            fmt(*v)
        );
        if let Some([lo, hi]) = ci {
            let _ = write!(
                s,
                r##"<line x1="{:.1}" x2="{:.1}" y1="{}" y2="{}" stroke="#111" stroke-width="1.5"/>"##,
                x(*lo),
                x(*hi),
                y + 7,
                y + 7
            );
        }
    }
    if let Some(m) = mark {
        let _ = write!(
            s,
            r##"<line x1="{:.1}" x2="{:.1}" y1="20" y2="{}" stroke="#b3261e" stroke-dasharray="4 3"/><text x="{:.1}" y="{}" fill="#b3261e">{}</text>"##,
            x(m),
            x(m),
            h - 8,
            x(m) + 2.0,
            h - 2,
            fmt(m)
        );
    }
    s.push_str("</svg>");
    s
}

fn fmt(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// One line of a chart: (name, colour, points).
type Series<'a> = (String, &'a str, Vec<(f64, f64)>);

/// Lines over a shared x axis.
fn lines(title: &str, xlabel: &str, series: &[Series]) -> String {
    let (w, h) = (420.0, 214.0);
    let (x0, y0, pw, ph) = (46.0, 38.0, 360.0, 140.0);
    let all = series.iter().flat_map(|s| s.2.iter());
    let (mut xmin, mut xmax, mut ymax) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in all {
        xmin = xmin.min(x);
        xmax = xmax.max(x);
        ymax = ymax.max(y);
    }
    if xmin > xmax {
        (xmin, xmax) = (0.0, 1.0);
    }
    if xmax - xmin < 1e-9 {
        xmax = xmin + 1.0; // every x equal: one point, still drawn
    }
    let ymax = if ymax <= 0.0 { 1.0 } else { ymax * 1.1 };
    let px = |x: f64| x0 + (x - xmin) / (xmax - xmin) * pw;
    let py = |y: f64| y0 + ph - (y / ymax) * ph;
    let mut s = format!(
        r##"<svg class="chart" role="img" width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg"><title>{t}</title><text x="4" y="14" font-weight="600">{t}</text><line x1="{x0}" y1="{b}" x2="{r}" y2="{b}" stroke="#888"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{b}" stroke="#888"/><text x="2" y="{y1}">{ym}</text><text x="{x0}" y="{b2}">{xa}</text><text x="{r2}" y="{b2}">{xb}</text><text x="200" y="{b3}">{xl}</text>"##,
        t = esc(title),
        b = y0 + ph,
        r = x0 + pw,
        y1 = y0 + 8.0,
        ym = fmt(ymax),
        b2 = y0 + ph + 12.0,
        xa = fmt(xmin),
        r2 = x0 + pw - 20.0,
        xb = fmt(xmax),
        b3 = y0 + ph + 26.0,
        xl = esc(xlabel)
    );
    for (i, (name, col, pts)) in series.iter().enumerate() {
        let path: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = write!(
            s,
            r#"<polyline fill="none" stroke="{col}" stroke-width="1.8" points="{}"/>"#,
            path.join(" ")
        );
        for &(x, y) in pts {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2" fill="{col}"><title>{}: {} → {}</title></circle>"#,
                px(x),
                py(y),
                esc(name),
                fmt(x),
                fmt(y)
            );
        }
        let _ = write!(
            s,
            r#"<rect x="{}" y="{}" width="10" height="3" fill="{col}"/><text x="{}" y="{}">{}</text>"#,
            300 + (i % 2) * 60,
            24 + (i / 2) * 10,
            314 + (i % 2) * 60,
            28 + (i / 2) * 10,
            esc(&name.chars().take(10).collect::<String>())
        );
    }
    s.push_str("</svg>");
    s
}

/// Where a percentile sits on the curve's x axis: `-log10(1 - p/100)` (50 → 0.3, 90 → 1, 99 → 2,
/// 99.9 → 3, 99.99 → 4), the maximum one decade further; the tail gets the room.
fn pct_x(p: f64) -> f64 {
    if p >= 100.0 {
        5.0
    } else {
        -(1.0 - p / 100.0).max(1e-6).log10()
    }
}

/// Latency percentile curves (from the histograms), source vs target: x the percentile on a
/// log-of-the-tail axis, y the latency in ms on a log axis.
fn percentile_curves(title: &str, percentiles: &[f64], series: &[(&str, &str, &[f64])]) -> String {
    let (w, h) = (420.0, 222.0);
    let (x0, y0, pw, ph) = (52.0, 36.0, 350.0, 140.0);
    let vals = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .filter(|v| v.is_finite() && *v > 0.0);
    let (mut lo, mut hi) = (f64::MAX, 0.0f64);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        (lo, hi) = (0.001, 1.0);
    }
    let (ly0, mut ly1) = (lo.log10().floor(), hi.log10().ceil());
    if ly1 - ly0 < 1.0 {
        ly1 = ly0 + 1.0; // every value in one decade (or equal): still a range
    }
    let xmax = pct_x(100.0);
    let px = |p: f64| x0 + pct_x(p) / xmax * pw;
    let py = |v: f64| {
        let l = v.max(1e-6).log10().clamp(ly0, ly1);
        y0 + ph - (l - ly0) / (ly1 - ly0) * ph
    };
    let mut s = format!(
        r##"<svg class="chart curve" role="img" width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg"><title>{t}</title><text x="4" y="14" font-weight="600">{t}</text><line x1="{x0}" y1="{b}" x2="{r}" y2="{b}" stroke="#888"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{b}" stroke="#888"/><text x="170" y="{b3}">percentile (log scale of the tail)</text>"##,
        t = esc(title),
        b = y0 + ph,
        r = x0 + pw,
        b3 = y0 + ph + 28.0,
    );
    for (p, label) in [
        (50.0, "p50"),
        (90.0, "p90"),
        (99.0, "p99"),
        (99.9, "p99.9"),
        (99.99, "p99.99"),
        (100.0, "max"),
    ] {
        let x = px(p);
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{y0}" y2="{b}" stroke="#e3e6ea"/><text x="{:.1}" y="{}">{label}</text>"##,
            x - 8.0,
            y0 + ph + 12.0,
            b = y0 + ph
        );
    }
    // Decades, and 2 and 5 in each when the range is two decades or less.
    let steps: &[f64] = if ly1 - ly0 <= 2.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut ticks = Vec::new();
    let mut d = ly0;
    while d <= ly1 + 1e-9 {
        for m in steps {
            let v = m * 10f64.powf(d);
            if v.log10() <= ly1 + 1e-9 {
                ticks.push(v);
            }
        }
        d += 1.0;
    }
    for v in ticks {
        let _ = write!(
            s,
            r##"<line x1="{x0}" x2="{r}" y1="{y:.1}" y2="{y:.1}" stroke="#eef0f3"/><text x="2" y="{:.1}">{} ms</text>"##,
            py(v) + 4.0,
            if v >= 1.0 {
                format!("{v:.0}")
            } else {
                format!("{}", (v * 1e6).round() / 1e6)
            },
            r = x0 + pw,
            y = py(v)
        );
    }
    for (i, (name, col, ms)) in series.iter().enumerate() {
        let pts: Vec<(f64, f64)> = percentiles
            .iter()
            .zip(ms.iter())
            .filter(|(_, v)| v.is_finite())
            .map(|(p, v)| (*p, *v))
            .collect();
        let path: Vec<String> = pts
            .iter()
            .map(|&(p, v)| format!("{:.1},{:.1}", px(p), py(v)))
            .collect();
        let _ = write!(
            s,
            r#"<polyline fill="none" stroke="{col}" stroke-width="1.8" points="{}"/>"#,
            path.join(" ")
        );
        for &(p, v) in &pts {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2" fill="{col}"><title>{}: p{} = {} ms</title></circle>"#,
                px(p),
                py(v),
                esc(name),
                if p >= 100.0 {
                    "max".to_string()
                } else {
                    format!("{p}")
                },
                fmt(v)
            );
        }
        let _ = write!(
            s,
            r#"<rect x="{}" y="24" width="10" height="3" fill="{col}"/><text x="{}" y="28">{}</text>"#,
            300 + i * 60,
            314 + i * 60,
            esc(name)
        );
    }
    s.push_str("</svg>");
    s
}

/// A word-level diff of a rewrite (`similar`), escaped.
fn word_diff(original: &str, rewrite: &str) -> String {
    let diff = similar::TextDiff::from_words(original, rewrite);
    let mut out = String::new();
    for ch in diff.iter_all_changes() {
        let v = esc(ch.value());
        match ch.tag() {
            similar::ChangeTag::Equal => out.push_str(&v),
            similar::ChangeTag::Delete => {
                let _ = write!(out, "<del>{v}</del>");
            }
            similar::ChangeTag::Insert => {
                let _ = write!(out, "<ins>{v}</ins>");
            }
        }
    }
    out
}

pub fn write(r: &GoNoGoReport, out: &mut dyn Write) -> io::Result<()> {
    let mut h = String::with_capacity(64 * 1024);
    let v = r.verdict.name();
    let _ = write!(
        h,
        r##"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"><title>cutover: {v}</title><style>{STYLE}</style></head><body><header class="{v}"><h1>Cutover: {}</h1><p>{}</p><nav><a href="#criteria">Criteria</a><a href="#charts">Charts</a><a href="#evidence">Evidence</a>{}<a href="#effort">Effort</a><a href="#rewrites">Rewrites</a><a href="#inputs">Inputs</a></nav></header><main>"##,
        v.to_uppercase(),
        esc(&r.reason),
        if r.baseline.is_some() {
            r##"<a href="#baseline">Baseline</a>"##
        } else {
            ""
        }
    );
    // Criteria.
    h.push_str(r#"<section id="criteria"><h2>Criteria</h2><table class="data"><thead><tr><th>criterion</th><th>stage</th><th>status</th><th>value</th><th>measured</th><th>threshold</th><th>summary</th></tr></thead><tbody>"#);
    for c in &r.criteria {
        let _ = write!(
            h,
            r#"<tr><td><code>{}</code></td><td>{}</td><td data-v="{}">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            esc(&c.id),
            esc(&c.stage),
            c.status as u8,
            st(c.status),
            c.value.map(fmt).unwrap_or_default(),
            esc(&c.measured),
            esc(&c.threshold),
            esc(&c.summary)
        );
    }
    h.push_str("</tbody></table></section>");
    // Charts.
    h.push_str(r#"<section id="charts"><h2>Charts</h2><div class="charts">"#);
    let ch = &r.charts;
    let fail_level = r.criterion("replay.latency").map(|_| ()).and(Some(()));
    let ratio_rows: Vec<_> = ch
        .latency_classes
        .iter()
        .take(20)
        .map(|c| {
            (
                format!("{} {}", c.kind.chars().next().unwrap_or('?'), c.name),
                c.ratio,
                c.ratio_ci,
                color(c.status),
            )
        })
        .collect();
    if !ratio_rows.is_empty() {
        h.push_str(&bars(
            "Latency ratio target/source per class (bar; interval as a line)",
            &ratio_rows,
            fail_level.map(|_| 1.0),
        ));
    }
    // The classes with the most time on the source (latency_classes is sorted by total time).
    for c in ch.latency_classes.iter().take(4) {
        let name: String = c.name.chars().take(40).collect();
        if !c.source_curve.is_empty() && !c.target_curve.is_empty() {
            h.push_str(&percentile_curves(
                &format!("Percentiles (ms): {name}"),
                &crate::report::CURVE_PERCENTILES,
                &[
                    ("source", "#2563eb", &c.source_curve),
                    ("target", "#dc2626", &c.target_curve),
                ],
            ));
            continue;
        }
        let q = [50.0, 95.0, 99.0, 100.0];
        h.push_str(&lines(
            &format!("Percentiles (ms): {name}"),
            "percentile",
            &[
                (
                    "source".into(),
                    "#2563eb",
                    q.iter().zip(c.source_ms).map(|(a, b)| (*a, b)).collect(),
                ),
                (
                    "target".into(),
                    "#dc2626",
                    q.iter().zip(c.target_ms).map(|(a, b)| (*a, b)).collect(),
                ),
            ],
        ));
    }
    if !ch.timeline.is_empty() {
        let series = |f: fn(&crate::report::TimelinePoint) -> f64| -> Vec<Series<'static>> {
            ["source", "target"]
                .iter()
                .map(|side| {
                    (
                        side.to_string(),
                        if *side == "source" {
                            "#2563eb"
                        } else {
                            "#dc2626"
                        },
                        ch.timeline
                            .iter()
                            .filter(|p| p.side == *side)
                            .map(|p| (p.t_s as f64, f(p)))
                            .collect(),
                    )
                })
                .collect()
        };
        h.push_str(&lines(
            "Throughput (statements/s) over the replay",
            "seconds",
            &series(|p| p.qps),
        ));
        h.push_str(&lines(
            "p95 latency (ms) over the replay",
            "seconds",
            &series(|p| p.p95_ms),
        ));
    }
    if !ch.verify_tables.is_empty() {
        let rows: Vec<_> = ch
            .verify_tables
            .iter()
            .take(30)
            .map(|(t, n)| {
                (
                    t.clone(),
                    *n as f64,
                    None,
                    if *n > 0 { "#b3261e" } else { "#1e7d3a" },
                )
            })
            .collect();
        h.push_str(&bars("Verify: rows differing per table", &rows, None));
    }
    if r.verify_history.len() > 1 {
        let pts = r
            .verify_history
            .iter()
            .enumerate()
            .map(|(i, p)| (i as f64 + 1.0, p.total_differences as f64))
            .collect();
        h.push_str(&lines(
            &format!(
                "Verify trend: differences per run / round ({})",
                r.verify_trend()
            ),
            "run / round, oldest first",
            &[("differences".into(), "#b3261e", pts)],
        ));
    }
    if !ch.audit_categories.is_empty() {
        let rows: Vec<_> = ch
            .audit_categories
            .iter()
            .flat_map(|(c, f, w)| {
                [
                    (format!("{c} fail"), *f as f64, None, "#b3261e"),
                    (format!("{c} warn"), *w as f64, None, "#b8860b"),
                ]
            })
            .filter(|r| r.1 > 0.0)
            .collect();
        h.push_str(&bars(
            "Audit: statements by category and verdict",
            &rows,
            None,
        ));
    }
    h.push_str("</div>");
    if r.verify_history.len() > 1 {
        let _ = write!(
            h,
            r#"<h3 id="verify-history">Verify history: {} (the newest decides)</h3><table class="data"><thead><tr><th>#</th><th>finished</th><th>file</th><th>round</th><th>differences</th><th>in flight</th></tr></thead><tbody>"#,
            r.verify_trend()
        );
        for (i, p) in r.verify_history.iter().enumerate() {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                i + 1,
                esc(&p.finished),
                esc(&p.path),
                p.round.map(|n| n.to_string()).unwrap_or_default(),
                p.total_differences,
                p.in_flight
            );
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>");
    // What changed since the baseline.
    if let Some(b) = &r.baseline {
        let _ = write!(
            h,
            r#"<section id="baseline"><h2>Since the baseline</h2><p><code>{}</code>: was <b>{}</b>, now <b>{}</b>.</p><table class="data"><thead><tr><th>change</th><th>what</th></tr></thead><tbody>"#,
            esc(&b.path),
            b.verdict_before.map(|v| v.name()).unwrap_or("?"),
            r.verdict.name()
        );
        let mut any = false;
        for (what, class, items) in [
            ("worse", "fail", &b.worse),
            ("new", "fail", &b.new),
            ("better", "pass", &b.better),
            ("fixed", "pass", &b.fixed),
        ] {
            for i in items {
                any = true;
                let _ = write!(
                    h,
                    r#"<tr><td><span class="st {class}">{what}</span></td><td><code>{}</code></td></tr>"#,
                    esc(i)
                );
            }
        }
        if !any {
            h.push_str("<tr><td>same</td><td>no criterion or evidence changed</td></tr>");
        }
        h.push_str("</tbody></table></section>");
    }
    // Evidence per criterion not passing.
    h.push_str(r#"<section id="evidence"><h2>Evidence</h2>"#);
    for c in &r.criteria {
        if c.evidence.is_empty() {
            continue;
        }
        let _ = write!(
            h,
            r#"<h3><code>{}</code> {}</h3><table class="data"><thead><tr><th>status</th><th>kind</th><th>id</th><th>detail</th><th>value</th><th>notes</th></tr></thead><tbody>"#,
            esc(&c.id),
            st(c.status)
        );
        for e in c.evidence.iter().take(200) {
            let _ = write!(
                h,
                r#"<tr><td data-v="{}">{}{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td><pre>{}</pre></td></tr>"#,
                e.status as u8,
                st(e.status),
                if e.waived_by.is_some() { " waived" } else { "" },
                esc(&e.kind),
                esc(&e.id),
                esc(&e.detail),
                e.value.map(fmt).unwrap_or_default(),
                esc(&e.notes.join("\n"))
            );
        }
        h.push_str("</tbody></table>");
    }
    if !r.waivers.is_empty() {
        h.push_str(r#"<h3>Waivers</h3><table class="data"><thead><tr><th>criterion</th><th>match</th><th>owner</th><th>expires</th><th>reason</th><th>applied</th></tr></thead><tbody>"#);
        for w in &r.waivers {
            let _ = write!(
                h,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&w.waiver.criterion),
                esc(w.waiver.matches.as_deref().unwrap_or("")),
                esc(&w.waiver.owner),
                esc(&w.waiver.expires),
                esc(&w.waiver.reason),
                esc(&w.note)
            );
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>");
    // Effort.
    let e = &r.effort;
    let _ = write!(
        h,
        r#"<section id="effort"><h2>Effort</h2><p>{} statement class(es): {} automatic, {} manual; {:.0} units of {} min = <b>{:.1} person-days</b>, migration level <b>{}</b>.</p><table class="data"><thead><tr><th>units</th><th>level</th><th>fix</th><th>executions</th><th>fingerprint</th><th>rules</th></tr></thead><tbody>"#,
        e.classes.len(),
        e.automatic,
        e.manual,
        e.units,
        e.unit_minutes,
        e.person_days,
        e.level
    );
    for c in &e.classes {
        let _ = write!(
            h,
            "<tr><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            c.units,
            c.level,
            esc(&c.fix),
            c.executions,
            esc(&c.fingerprint),
            esc(&c.rules.join(", "))
        );
    }
    h.push_str("</tbody></table></section>");
    // Rewrites.
    h.push_str(r#"<section id="rewrites"><h2>Rewrites</h2>"#);
    if ch.rewrites.is_empty() {
        h.push_str("<p>No statement needed a rewrite.</p>");
    }
    for (id, orig, rw) in &ch.rewrites {
        let _ = write!(
            h,
            r#"<p><code>{}</code></p><pre class="diff">{}</pre>"#,
            esc(id),
            word_diff(orig, rw)
        );
    }
    h.push_str("</section>");
    // Inputs.
    h.push_str(r#"<section id="inputs"><h2>Inputs</h2><table class="data"><thead><tr><th>file</th><th>schema</th><th>finished</th><th>xxh3</th><th>source</th><th>target</th></tr></thead><tbody>"#);
    for i in &r.stage_inputs {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            esc(&i.path),
            esc(&i.schema),
            esc(&i.finished),
            esc(&i.xxh3),
            esc(i.endpoints.source.as_deref().unwrap_or("")),
            esc(i.endpoints.target.as_deref().unwrap_or(""))
        );
    }
    let _ = writeln!(
        h,
        "</tbody></table><p>gate: {}; made {} by cutover {}</p></section></main><script>{SCRIPT}</script></body></html>",
        esc(&r.gate),
        esc(&r.header.finished),
        esc(&r.header.tool.version)
    );
    out.write_all(h.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_escaped() {
        assert_eq!(
            esc("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"
        );
        let d = word_diff("SELECT `a` FROM t", "SELECT \"a\" FROM t");
        assert!(
            d.contains("<del>`a`</del>") && d.contains("<ins>&quot;a&quot;</ins>"),
            "{d}"
        );
        assert!(
            !lines("x", "t", &[("s".into(), "#000", vec![(1.0, 2.0)])]).contains("NaN"),
            "a single point draws"
        );
    }
}
