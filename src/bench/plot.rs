//! `lemplint bench --plot FILE.svg`: throughput and p99 latency over time, one line per
//! configuration, in a self-contained SVG (no plotting library needed for two line charts).
//! Axes carry round ticks (1, 2 or 5 times a power of ten), and under the seconds the
//! connections open at each tick (on a ramp they rise with time: the number a reader wants
//! beside a drop in throughput).

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
    // Connections open at the end of each second, from the first configuration's run.
    let connections: Vec<usize> = results
        .first()
        .and_then(|m| m.runs.first())
        .map(|r| r.series.iter().map(|s| s.connections).collect())
        .unwrap_or_default();
    let height = 2.0 * PANEL + 140.0;
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
        let (step, max) = ticks(max, 4);
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
        for v in steps(step, max) {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y0}\" y2=\"{y0}\" stroke=\"#eee\"/>",
                LEFT - 6.0,
                y(v) + 4.0,
                label(v, step),
                W - RIGHT,
                y0 = y(v)
            );
        }
        for t in steps(ticks(seconds, 6).0, seconds) {
            let _ = writeln!(
                out,
                "<line x1=\"{x0}\" x2=\"{x0}\" y1=\"{top}\" y2=\"{}\" stroke=\"#eee\"/>",
                top + PANEL,
                x0 = x(t)
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
    let x = |t: f64| LEFT + (t / seconds) * (W - LEFT - RIGHT);
    // The time axis: seconds, and under each the connections open then.
    let (step, _) = ticks(seconds, 6);
    for t in steps(step, seconds) {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x(t),
            bottom + 16.0,
            label(t, step)
        );
        // Second t ends at index t - 1; at 0 the first second's connections stand.
        let at = (t.round() as usize).saturating_sub(1);
        if let Some(c) = connections.get(at.min(connections.len().saturating_sub(1))) {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555\">{c}</text>",
                x(t),
                bottom + 32.0
            );
        }
    }
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">seconds</text>",
        LEFT - 6.0,
        bottom + 16.0
    );
    if !connections.is_empty() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">connections</text>",
            LEFT - 6.0,
            bottom + 32.0
        );
    }
    for (n, (label, _)) in series.iter().enumerate() {
        let lx = LEFT + n as f64 * 180.0;
        let _ = writeln!(
            out,
            "<rect x=\"{lx}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            bottom + 56.0,
            COLOURS[n % COLOURS.len()],
            lx + 20.0,
            bottom + 61.0,
            escape(label)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// A round step for about `n` ticks from 0 to past `max` (1, 2 or 5 times a power of ten),
/// and the axis's top: the first multiple of the step at or above `max`.
pub fn ticks(max: f64, n: usize) -> (f64, f64) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / n.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * magnitude)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * magnitude);
    let top = (max / step - 1e-9).ceil().max(1.0) * step;
    (step, top)
}

/// 0, step, 2·step, … up to `top`.
fn steps(step: f64, top: f64) -> impl Iterator<Item = f64> {
    let n = (top / step + 1e-9).floor() as usize;
    (0..=n).map(move |i| i as f64 * step)
}

/// A tick's text: as many decimals as the step needs.
fn label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{v:.decimals$}")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        let close = |(a, b): (f64, f64), (c, d): (f64, f64)| {
            assert!((a - c).abs() < 1e-9 && (b - d).abs() < 1e-9, "{a} {b}");
        };
        // The y axis that once read 463, 926, …: 500 a step, up to 2000.
        close(ticks(1852.0, 4), (500.0, 2000.0));
        close(ticks(60.0, 6), (10.0, 60.0));
        close(ticks(7.0, 6), (2.0, 8.0));
        close(ticks(3.0, 6), (0.5, 3.0));
        close(ticks(0.0, 4), (0.5, 1.0));
        close(ticks(107.3, 4), (50.0, 150.0));
        let all: Vec<String> = steps(500.0, 2000.0).map(|v| label(v, 500.0)).collect();
        assert_eq!(all, ["0", "500", "1000", "1500", "2000"]);
        let all: Vec<String> = steps(0.5, 1.5).map(|v| label(v, 0.5)).collect();
        assert_eq!(all, ["0.0", "0.5", "1.0", "1.5"]);
    }
}
