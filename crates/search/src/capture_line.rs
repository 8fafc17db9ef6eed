//! Lines of captures: a search, before any proof graph, for captures that each give the
//! attacker another turn and together meet the threshold ([`ThresholdProver::line`]).

use std::collections::HashMap;

use hoyito_rules::{Position, Side};

use crate::certificate::{Kind, RecordedClaim};
use crate::context::{Context, Stopped};
use crate::threshold::{align, step, ThresholdProver};

/// Most positions one search for a line of captures looks at ([`ThresholdProver::line`]).
const LINE_CAP: usize = 1 << 20;

/// One search for a line of captures ([`ThresholdProver::line`]).
struct LineSearch<const W: usize> {
    /// The line so far: each position, what its mover needs there, and the capture it plays.
    path: Vec<(Position<W>, i32, u8)>,
    /// For each position where no line was found, the least need it was not found for.
    failed: HashMap<[u64; W], i32, ahash::RandomState>,
    /// Positions looked at.
    visited: usize,
}

impl<const W: usize> ThresholdProver<W> {
    /// Seeks a line of captures, each giving the attacker of "South's value of `p` is at
    /// least `t`" another turn, that reaches a position (or a game end) known to meet what
    /// is left of the threshold: South's line when `t > 0`, North's line to "at most
    /// `t - step`" otherwise. The defender never moves on such a line, so no proof graph is
    /// needed; a line that is found is recorded (deepest claim first) and its bounds kept.
    /// Such lines decide starts where one side can take most of the board in one turn (72
    /// of the 72 seeds of the Hoyito III start with 6 a hole), which the breadth-first
    /// rounds of a proof, trying every capture in hole order, can take hours to find.
    /// Looks at [`LINE_CAP`] positions at most, each counted as explored (and against a node
    /// limit); returns whether a line was found.
    pub(crate) fn line(
        &mut self,
        cx: &Context<'_, W>,
        p: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        let t = align(p, t);
        let step = step(p);
        let south_attacks = t > 0;
        if (p.side_to_move() == Side::South) != south_attacks {
            return Ok(false);
        }
        // What the attacker must get, in its own view.
        let need = if south_attacks { t } else { step - t };
        // The search depends on the bounds known and nothing else (not on earlier searches),
        // so that a run resumed from its record finds what an unstopped one does.
        let mut search = LineSearch {
            path: Vec::new(),
            failed: HashMap::with_hasher(ahash::RandomState::with_seeds(5, 9, 2, 6)),
            visited: 0,
        };
        if !self.line_from(cx, p, need, &mut search)? {
            return Ok(false);
        }
        let path = search.path;
        let k = path.len() as u32;
        let claims = path.iter().enumerate().map(|(i, &(q, need, hole))| {
            let (kind, bound) = if south_attacks {
                (Kind::AtLeast, need)
            } else {
                (Kind::AtMost, -need)
            };
            RecordedClaim {
                position: q.with_captured(0, 0),
                kind,
                bound,
                hole,
                // The deepest claim first: each relies on the next one along the line.
                order: k - i as u32,
            }
        });
        self.record_claims(claims);
        for &(q, need, _) in &path {
            let n = q.seeds_on_board() as i32;
            if south_attacks {
                self.learn(&q, need, n);
            } else {
                self.learn(&q, -n, -need);
            }
        }
        Ok(true)
    }

    /// Whether the mover of `p` gets at least `need` (its own view) by what is known of `p`
    /// or by a line of its own captures from `p`; the line's positions, needs and holes are
    /// pushed on `search.path`.
    fn line_from(
        &mut self,
        cx: &Context<'_, W>,
        p: &Position<W>,
        need: i32,
        search: &mut LineSearch<W>,
    ) -> Result<bool, Stopped> {
        let (lo, hi) = self.known(cx.probe, p);
        let (least, most) = if p.side_to_move() == Side::South {
            (lo, hi)
        } else {
            (-hi, -lo)
        };
        if least >= need {
            return Ok(true);
        }
        let key = p.board_key();
        if most < need
            || search.visited >= LINE_CAP
            || search.failed.get(&key).is_some_and(|&f| f <= need)
        {
            return Ok(false);
        }
        search.visited += 1;
        self.count(&cx.budget, p)?;
        let list = p.moves(&self.rules);
        // The captures (no allocation: this runs for up to a million positions a search),
        // biggest first, then in hole order.
        let children = list.children();
        let mut exits = [0u8; 12];
        let mut n = 0;
        for (i, c) in children.iter().enumerate() {
            if c.extra_turn || c.ended_game {
                exits[n] = i as u8;
                n += 1;
            }
        }
        exits[..n].sort_by_key(|&i| -children[i as usize].gain);
        for c in exits[..n].iter().map(|&i| &children[i as usize]) {
            let g = i32::from(c.gain);
            search.path.push((*p, need, c.mv.0));
            if if c.ended_game {
                g >= need
            } else {
                self.line_from(cx, &c.position, need - g, search)?
            } {
                return Ok(true);
            }
            search.path.pop();
        }
        let f = search.failed.entry(key).or_insert(i32::MAX);
        *f = (*f).min(need);
        Ok(false)
    }
}
