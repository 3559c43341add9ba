//! `lemplint bench --plot FILE.svg`: throughput and p99 latency over time, one line per
//! configuration, in a self-contained SVG (no plotting library needed for two line charts).

use super::Measured;
use std::fmt::Write as _;

const W: f64 = 860.0;
const PANEL: f64 = 220.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const COLOURS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// One point: second, requests that second, p99 latency (ms).
type Point = (f64, f64, f64);

pub fn svg(results: &[Measured]) -> String {
    let series: Vec<(&str, Vec<Point>)> = results
        .iter()
        .filter_map(|m| {
            let s = &m.runs.first()?.series;
            Some((
                m.label.as_str(),
                s.iter()
                    .enumerate()
                    .map(|(i, x)| (i as f64 + 1.0, x.ok as f64, x.p99_ms))
                    .collect(),
            ))
        })
        .collect();
    let seconds = series.iter().map(|s| s.1.len()).max().unwrap_or(1).max(1) as f64;
    let max_rps = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    let max_p99 = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.2))
        .fold(1.0, f64::max);
    let height = 2.0 * PANEL + 110.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for (k, (title, max, top)) in [
        ("requests/s", max_rps, 30.0),
        ("p99 latency (ms)", max_p99, 60.0 + PANEL),
    ]
    .into_iter()
    .enumerate()
    {
        let x = |t: f64| LEFT + (t / seconds) * (W - LEFT - RIGHT);
        let y = |v: f64| top + PANEL - (v / max) * PANEL;
        let _ = writeln!(
            out,
            "<text x=\"{LEFT}\" y=\"{}\" font-weight=\"bold\">{title}</text>",
            top - 8.0
        );
        let _ = writeln!(
            out,
            "<rect x=\"{LEFT}\" y=\"{top}\" width=\"{}\" height=\"{PANEL}\" fill=\"none\" stroke=\"#999\"/>",
            W - LEFT - RIGHT
        );
        for i in 0..=4 {
            let v = max * i as f64 / 4.0;
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{v:.0}</text><line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y0}\" y2=\"{y0}\" stroke=\"#eee\"/>",
                LEFT - 6.0,
                y(v) + 4.0,
                W - RIGHT,
                y0 = y(v)
            );
        }
        for (n, (_, points)) in series.iter().enumerate() {
            let path: Vec<String> = points
                .iter()
                .map(|p| format!("{:.1},{:.1}", x(p.0), y(if k == 0 { p.1 } else { p.2 })))
                .collect();
            let _ = writeln!(
                out,
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
                COLOURS[n % COLOURS.len()],
                path.join(" ")
            );
        }
    }
    let bottom = 60.0 + 2.0 * PANEL;
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">seconds (0 – {seconds:.0})</text>",
        (W + LEFT) / 2.0,
        bottom + 20.0
    );
    for (n, (label, _)) in series.iter().enumerate() {
        let lx = LEFT + n as f64 * 180.0;
        let _ = writeln!(
            out,
            "<rect x=\"{lx}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            bottom + 36.0,
            COLOURS[n % COLOURS.len()],
            lx + 20.0,
            bottom + 41.0,
            escape(label)
        );
    }
    out.push_str("</svg>\n");
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
