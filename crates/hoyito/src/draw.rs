//! Positions and rules as text for a person: the board drawn in rows with marks on holes,
//! a side's name, and the rules as a report.

use hoyito_rules::{Position, Rules, Side};
use serde::Serialize;

/// A side's name in full, for text.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// Holes to mark in a drawing (indices `0 .. 2H` in sowing order): where a move started,
/// where its last lap ended, and the holes it captured.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// The hole the move was played from, marked `^`.
    pub start: Option<usize>,
    /// The hole where the last lap ended, marked `*`.
    pub landing: Option<usize>,
    /// The holes captured, marked `x`.
    pub captured: Vec<usize>,
}

impl Marks {
    /// The mark of hole `i` and its ANSI colour: captured (red), landing (bold yellow), start
    /// (cyan).
    fn of(&self, i: usize) -> Option<(char, &'static str)> {
        if self.captured.contains(&i) {
            Some(('x', "31"))
        } else if self.landing == Some(i) {
            Some(('*', "1;33"))
        } else if self.start == Some(i) {
            Some(('^', "36"))
        } else {
            None
        }
    }
}

/// Draws a position for a person: North's row on top, right to left, so that sowing runs
/// counterclockwise on screen.
pub fn draw<const W: usize>(p: &Position<W>) -> String {
    draw_marked(p, &Marks::default(), false)
}

/// [`draw`] with holes marked by a sign after their count, and coloured when `colour`.
pub fn draw_marked<const W: usize>(p: &Position<W>, marks: &Marks, colour: bool) -> String {
    let h = p.holes();
    let cell = |side: Side, k: usize| {
        let v = p.seeds_in(side, k);
        match marks.of(side.index() * h + k - 1) {
            None => format!("{v:>4}"),
            Some((m, code)) => {
                let text = format!("{:>4}", format!("{v}{m}"));
                if colour {
                    format!("\x1b[{code}m{text}\x1b[0m")
                } else {
                    text
                }
            }
        }
    };
    let mut s = String::new();
    s.push_str("         ");
    s.extend((1..=h).rev().map(|k| format!("{:>4}", format!("N{k}"))));
    s.push('\n');
    s.push_str("North    ");
    s.extend((1..=h).rev().map(|k| cell(Side::North, k)));
    s.push_str(&format!("    captured {}\n", p.captured(Side::North)));
    s.push_str("South    ");
    s.extend((1..=h).map(|k| cell(Side::South, k)));
    s.push_str(&format!("    captured {}\n", p.captured(Side::South)));
    s.push_str("         ");
    s.extend((1..=h).map(|k| format!("{:>4}", format!("S{k}"))));
    s.push('\n');
    s.push_str(&format!(
        "{} to move; {} seeds on the board\n",
        side_name(p.side_to_move()),
        p.seeds_on_board()
    ));
    s
}

/// The rules as a report: each option by its name in the notation.
#[derive(Clone, Debug, Serialize)]
pub struct RulesReport {
    /// `hoyito2` or `hoyito3`.
    pub variant: String,
    /// Holes a row.
    pub holes: usize,
    /// Seeds a hole at the start.
    pub seeds: usize,
    /// Who gets the last four seeds: `capturer`, `S` or `N`.
    pub last_four: String,
    /// Where captures may happen: `any` or `opponent`.
    pub capture_side: String,
}

impl RulesReport {
    /// The report of `r`.
    pub fn of(r: &Rules) -> Self {
        RulesReport {
            variant: r.variant().to_string(),
            holes: r.holes(),
            seeds: r.seeds(),
            last_four: r.last_four().to_string(),
            capture_side: r.capture_side().to_string(),
        }
    }
}
