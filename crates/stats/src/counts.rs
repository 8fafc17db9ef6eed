//! Counts of game results: single games and game pairs.

use crate::elo::EloEstimate;

/// The result of one game for the player the statistics are about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player lost.
    Loss,
    /// Neither player won.
    Draw,
    /// The player won.
    Win,
}

impl Outcome {
    /// The outcome of a game that ended `margin` ahead (seeds, points): its sign.
    ///
    /// ```
    /// use hoyito_stats::Outcome;
    /// assert_eq!(Outcome::from_margin(-3), Outcome::Loss);
    /// assert_eq!(Outcome::from_margin(0), Outcome::Draw);
    /// ```
    pub fn from_margin(margin: i64) -> Self {
        match margin.cmp(&0) {
            std::cmp::Ordering::Less => Outcome::Loss,
            std::cmp::Ordering::Equal => Outcome::Draw,
            std::cmp::Ordering::Greater => Outcome::Win,
        }
    }

    /// Half points the game scored: 0, 1 or 2.
    pub fn half_points(self) -> u8 {
        match self {
            Outcome::Loss => 0,
            Outcome::Draw => 1,
            Outcome::Win => 2,
        }
    }
}

/// Wins, draws and losses of single games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Trinomial {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Trinomial {
    /// Counts `outcome`.
    pub fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Loss => self.losses += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Win => self.wins += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Points per game, `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / self.games() as f64)
    }

    /// The share of draws, `None` before the first game.
    pub fn draw_ratio(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.draws as f64 / self.games() as f64)
    }

    /// The Elo estimate from single games, as fastchess's `EloWDL`; `None` when the results
    /// have no spread (no game, or all games ended alike).
    ///
    /// ```
    /// use hoyito_stats::Trinomial;
    /// let e = Trinomial { wins: 136, draws: 111, losses: 96 }.elo().unwrap();
    /// assert_eq!(format!("{:.2} +/- {:.2}", e.elo, e.elo_error), "40.70 +/- 30.43");
    /// ```
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_counts(&[0.0, 0.5, 1.0], &[self.losses, self.draws, self.wins], 1.0)
    }
}

/// Game pairs, each an opening played twice with the sides swapped, by the points the pair
/// scored. Fastchess counts a 1-point pair as a win and a loss or as two draws; both score
/// alike, and the statistics merge them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// Pairs lost twice: 0 points.
    pub ll: u64,
    /// Pairs with a loss and a draw: ½ point.
    pub ld: u64,
    /// Pairs with a win and a loss: 1 point.
    pub wl: u64,
    /// Pairs with two draws: 1 point.
    pub dd: u64,
    /// Pairs with a win and a draw: 1½ points.
    pub wd: u64,
    /// Pairs won twice: 2 points.
    pub ww: u64,
}

impl Pentanomial {
    /// Counts a pair of games.
    ///
    /// ```
    /// use hoyito_stats::{Outcome, Pentanomial};
    /// let mut p = Pentanomial::default();
    /// p.add_pair(Outcome::Win, Outcome::Loss);
    /// p.add_pair(Outcome::Draw, Outcome::Draw);
    /// assert_eq!(p.counts(), [0, 0, 2, 0, 0]);
    /// ```
    pub fn add_pair(&mut self, first: Outcome, second: Outcome) {
        use Outcome::*;
        match (first, second) {
            (Loss, Loss) => self.ll += 1,
            (Loss, Draw) | (Draw, Loss) => self.ld += 1,
            (Win, Loss) | (Loss, Win) => self.wl += 1,
            (Draw, Draw) => self.dd += 1,
            (Win, Draw) | (Draw, Win) => self.wd += 1,
            (Win, Win) => self.ww += 1,
        }
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts().iter().sum()
    }

    /// Pairs by points scored: 0, ½, 1, 1½, 2 (fastchess's `Ptnml(0-2)`).
    pub fn counts(&self) -> [u64; 5] {
        [self.ll, self.ld, self.wl + self.dd, self.wd, self.ww]
    }

    /// Points per game, `None` before the first pair.
    pub fn score(&self) -> Option<f64> {
        let c = self.counts();
        let half_points: u64 = c.iter().enumerate().map(|(i, &n)| i as u64 * n).sum();
        (self.pairs() > 0).then(|| half_points as f64 / (4 * self.pairs()) as f64)
    }

    /// The share of pairs that scored 1 point (fastchess's pentanomial draw ratio), `None`
    /// before the first pair.
    pub fn draw_ratio(&self) -> Option<f64> {
        (self.pairs() > 0).then(|| (self.wl + self.dd) as f64 / self.pairs() as f64)
    }

    /// The Elo estimate from pairs, as fastchess's `EloPentanomial`; `None` when the pairs
    /// have no spread (no pair, or all pairs scored alike).
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_counts(&[0.0, 0.25, 0.5, 0.75, 1.0], &self.counts(), 2.0)
    }
}
