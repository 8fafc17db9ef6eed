//! `solve review FILE`: a recorded game reviewed by the library, printed, and its value
//! graph drawn as SVG with `--svg` (drawing is the front's).

use std::fmt::Write as _;

use anyhow::{Context as _, Result};
use hoyito::review::{review_with_progress, writable, ReviewOptions, ReviewReport};
use hoyito::setup::record_game;
use hoyito::Record;

use crate::cli::ReviewArgs;
use crate::common::{emit, Spinner};

/// `solve review FILE`.
pub fn run(json: bool, a: &ReviewArgs) -> Result<()> {
    let record = record_game(&a.file, a.game)?;
    // A file that cannot be written is said before the review's searches, not after.
    if let Some(path) = &a.svg {
        writable("--svg", path)?;
    }
    // Progress on stderr: a spinner on a terminal, else a line as often as
    // SOLVE_PROGRESS_EVERY says (a minute by default).
    let spinner = Spinner::new()?;
    let progress = |k: usize, n: usize| spinner.say(|| format!("reviewing ply {k} of {n}"));
    let report = review_with_progress(&record, &ReviewOptions::from(a), &progress);
    spinner.finish();
    let mut report = report?;
    if let Some(path) = &a.svg {
        let text = svg_graph(&record, a, &report);
        std::fs::write(path, text)
            .with_context(|| format!("--svg: cannot write {}", path.display()))?;
        report.svg = Some(path.display().to_string());
    }
    emit(&report, json)
}

/// Text that may stand in SVG text and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The fill of a ply's point by its class (the moves that lost seeds stand out).
fn class_colour(class: &str) -> &'static str {
    match class {
        "best" => "#333333",
        "inaccuracy" => "#e0a000",
        "mistake" => "#e06000",
        _ => "#c00000",
    }
}

/// Margins and plot height of the SVG value graph, in pixels.
const LEFT: f64 = 48.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 44.0;
const PLOT: f64 = 200.0;
const BOTTOM: f64 = 56.0;

/// The geometry of the value graph: `n` plies, values up to `top` seeds either way.
struct Plot {
    n: usize,
    top: i32,
    step: f64,
    width: f64,
    height: f64,
}

impl Plot {
    fn new(values: &[i32]) -> Self {
        let n = values.len();
        // Columns of 4 to 16 pixels, about 640 in all, and room for the legend.
        let columns = n.max(1) as f64;
        let plot_width = ((640.0 / columns).clamp(4.0, 16.0) * columns).max(480.0);
        Plot {
            n,
            top: values.iter().map(|v| v.abs()).max().unwrap_or(0).max(1),
            step: plot_width / columns,
            width: LEFT + plot_width + RIGHT,
            height: TOP + PLOT + BOTTOM,
        }
    }

    fn x(&self, i: usize) -> f64 {
        LEFT + self.step * (i as f64 + 0.5)
    }

    fn y(&self, v: i32) -> f64 {
        TOP + PLOT / 2.0 - v as f64 / self.top as f64 * (PLOT / 2.0)
    }
}

/// The value graph as an SVG document: the value for South before each ply, joined by a
/// line; one `circle` of class `ply` a ply, filled where the values were proven and hollow
/// where heuristic, coloured by the move's class, with a tooltip; the zero line, the scale
/// and a legend.
fn svg_graph(record: &Record, a: &ReviewArgs, report: &ReviewReport) -> String {
    let values = report.south_values();
    let g = Plot::new(&values);
    let (width, height) = (g.width, g.height);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(
        s,
        "<title>value for South before each ply: {} game {}</title>",
        escape(&a.file.display().to_string()),
        a.game
    );
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"white\"/>"
    );
    let _ = writeln!(
        s,
        "<text x=\"{LEFT}\" y=\"18\" font-size=\"13\">{} (South) vs {} (North), {}</text>",
        escape(&record.south),
        escape(&record.north),
        escape(record.result())
    );
    let _ = writeln!(
        s,
        "<text x=\"{LEFT}\" y=\"34\">value for South before each ply, in seeds</text>"
    );
    svg_axes(&mut s, &g);
    svg_points(&mut s, &g, report, &values);
    svg_legend(&mut s);
    s.push_str("</svg>\n");
    s
}

/// The frame, the zero line, the scale and the ply numbers of the value graph.
fn svg_axes(s: &mut String, g: &Plot) {
    let (left, right, top) = (LEFT, g.width - RIGHT, g.top);
    let _ = writeln!(
        s,
        "<rect x=\"{left}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{PLOT}\" fill=\"none\" stroke=\"#999999\"/>",
        right - left
    );
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{right:.1}\" y2=\"{0:.1}\" stroke=\"#999999\" stroke-dasharray=\"4 3\"/>",
        g.y(0)
    );
    for (v, label) in [
        (top, format!("{top:+}")),
        (0, "0".to_string()),
        (-top, format!("{:+}", -top)),
    ] {
        let _ = writeln!(
            s,
            "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            LEFT - 6.0,
            g.y(v) + 4.0
        );
    }
    // Ply numbers along the bottom: the first, every tenth, the last.
    for i in 0..g.n {
        let ply = i + 1;
        if ply == 1 || ply % 10 == 0 || ply == g.n {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.0}\" text-anchor=\"middle\">{ply}</text>",
                g.x(i),
                TOP + PLOT + 14.0
            );
        }
    }
}

/// The line through the values and one point a ply, with its tooltip.
fn svg_points(s: &mut String, g: &Plot, report: &ReviewReport, values: &[i32]) {
    if g.n > 0 {
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", g.x(i), g.y(v)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#4060a0\" stroke-width=\"1.5\"/>",
            points.join(" ")
        );
    }
    for (i, (p, &v)) in report.plies().iter().zip(values).enumerate() {
        let colour = class_colour(p.class);
        let (fill, proof) = if p.exact {
            (colour, "exact")
        } else {
            ("white", "heuristic")
        };
        let radius = if p.class == "best" { 3.0 } else { 4.5 };
        let _ = writeln!(
            s,
            "<circle class=\"ply {} {proof}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{radius}\" fill=\"{fill}\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"><title>ply {} {}: {v:+} for South before it; \
             {} (lost {}), {proof}</title></circle>",
            p.class,
            g.x(i),
            g.y(v),
            p.ply,
            escape(&p.token),
            p.class,
            p.lost
        );
    }
}

/// The legend: the classes' colours, and what a hollow point means.
fn svg_legend(s: &mut String) {
    let ly = TOP + PLOT + 36.0;
    let mut lx = LEFT;
    for (label, colour, fill) in [
        ("best", class_colour("best"), class_colour("best")),
        (
            "inaccuracy",
            class_colour("inaccuracy"),
            class_colour("inaccuracy"),
        ),
        ("mistake", class_colour("mistake"), class_colour("mistake")),
        ("blunder", class_colour("blunder"), class_colour("blunder")),
        ("hollow: heuristic", "#333333", "white"),
    ] {
        let _ = writeln!(
            s,
            "<circle cx=\"{:.0}\" cy=\"{:.0}\" r=\"4\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
            lx + 4.0,
            ly - 4.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.0}\" y=\"{ly:.0}\">{label}</text>",
            lx + 12.0
        );
        lx += 12.0 + 7.0 * label.len() as f64 + 14.0;
    }
}
