//! The heuristic evaluation used at the horizon of a depth-limited search.

use hoyito_rules::{Position, Rules};

/// A linear estimate of a position's value (net future captures for the side to move).
///
/// It measures two things, each weighted in sixteenths of a seed:
///
/// - `row`: seeds in the mover's row minus seeds in the opponent's row. Seeds on one's own
///   side are the ones a player can choose to sow, so they are options to make captures.
/// - `mobility`: non-empty holes of the mover minus those of the opponent: a player with few
///   playable holes is forced into moves that set up the opponent's captures.
///
/// The estimate is clamped to `-n + 1 ..= n - 1` for `n` seeds on the board: a heuristic
/// score never claims a proven extreme. The default weights were chosen by matches between
/// versions (`solve match`), not by intuition (figures at [`Eval::default`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    /// Weight of the row difference, in sixteenths of a seed per seed.
    pub row: i32,
    /// Weight of the difference in non-empty holes, in sixteenths of a seed per hole.
    pub mobility: i32,
}

impl Default for Eval {
    fn default() -> Self {
        // Chosen by `solve match` at depth 8 from random 4-ply openings (200 games each,
        // 2x6): (4, 16) scored 0.535 against (4, 0) and 0.555 against (0, 0); (8, 16) scored
        // 0.482 and (4, 32) 0.487 against (4, 16). On 2x12 at depth 6 (100 games) it was even.
        Eval {
            row: 4,
            mobility: 16,
        }
    }
}

impl Eval {
    /// The evaluation that always says 0 (material-blind: only captures seen count).
    pub const ZERO: Eval = Eval {
        row: 0,
        mobility: 0,
    };

    /// The estimate for the side to move of `p`, which holds `n` seeds on the board.
    #[inline]
    pub fn evaluate<const W: usize>(&self, _rules: &Rules, p: &Position<W>, n: i32) -> i32 {
        if self.row == 0 && self.mobility == 0 {
            return 0;
        }
        let h = p.holes();
        let me = p.side_to_move().index() * h;
        let opp = h - me;
        let (mut rows, mut holes) = (0i32, 0i32);
        for k in 0..h {
            let a = p.seeds(me + k) as i32;
            let b = p.seeds(opp + k) as i32;
            rows += a - b;
            holes += (a != 0) as i32 - (b != 0) as i32;
        }
        let e = (self.row * rows + self.mobility * holes) / 16;
        e.clamp(-n + 1, n - 1)
    }
}
