//! Elo estimates from result counts, as fastchess's `EloWDL` and `EloPentanomial`.

/// The two-sided 95% quantile of the standard normal distribution (fastchess's `CI95ZSCORE`).
pub const CI95_Z: f64 = 1.959963984540054;

/// Normalised Elo per unit of score over standard deviation: 800 / ln 10.
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// What a set of results says about the strength difference, with 95% intervals.
///
/// The score's interval is the normal approximation, score ± 1.96 σ/√n, with σ the standard
/// deviation of the score of one unit (a game or a pair) and n the units counted. The Elo
/// interval is the logistic Elo of the score interval's ends; `elo_error` is half its width,
/// the "±" figure fastchess prints. An end beyond a score of 0 or 1 makes it infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Points per game.
    pub score: f64,
    /// Lower end of the score's 95% interval.
    pub score_lower: f64,
    /// Upper end of the score's 95% interval.
    pub score_upper: f64,
    /// The logistic Elo difference, −400 log₁₀(1/score − 1).
    pub elo: f64,
    /// Logistic Elo of `score_lower`.
    pub elo_lower: f64,
    /// Logistic Elo of `score_upper`.
    pub elo_upper: f64,
    /// Half the width of the Elo interval.
    pub elo_error: f64,
    /// Normalised Elo: (score − ½) / σ of a game, times 800 / ln 10 (for pairs, σ of a pair
    /// times √2 stands for a game's).
    pub nelo: f64,
    /// Half the width of the normalised Elo's 95% interval.
    pub nelo_error: f64,
    /// Likelihood of superiority: the probability, under the normal approximation, that the
    /// score exceeds ½.
    pub los: f64,
}

impl EloEstimate {
    /// The estimate from `counts[i]` units (games or pairs) scoring `scores[i]` points per
    /// game each, a unit being `games_per_unit` games; `None` without spread.
    pub(crate) fn from_counts(scores: &[f64], counts: &[u64], games_per_unit: f64) -> Option<Self> {
        let n: u64 = counts.iter().sum();
        if n == 0 {
            return None;
        }
        let n = n as f64;
        let p: Vec<f64> = counts.iter().map(|&c| c as f64 / n).collect();
        let score: f64 = p.iter().zip(scores).map(|(p, s)| p * s).sum();
        let variance: f64 = p
            .iter()
            .zip(scores)
            .map(|(p, s)| p * (s - score).powi(2))
            .sum();
        if variance <= 0.0 {
            return None;
        }
        let variance_per_unit = variance / n;
        let half_width = CI95_Z * variance_per_unit.sqrt();
        let (score_lower, score_upper) = (score - half_width, score + half_width);
        let (elo_lower, elo_upper) = (score_to_elo(score_lower), score_to_elo(score_upper));
        let nelo_per_score = NELO_SCALE / (games_per_unit * variance).sqrt();
        Some(EloEstimate {
            score,
            score_lower,
            score_upper,
            elo: score_to_elo(score),
            elo_lower,
            elo_upper,
            elo_error: (elo_upper - elo_lower) / 2.0,
            nelo: (score - 0.5) * nelo_per_score,
            nelo_error: half_width * nelo_per_score,
            los: (1.0 - erf(-(score - 0.5) / (2.0 * variance_per_unit).sqrt())) / 2.0,
        })
    }
}

/// The logistic Elo difference of a score, infinite at 0 and 1.
pub(crate) fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The error function, erf x = 2/√π ∫₀ˣ e^(−t²) dt, to about 1e−15 (the standard library's is
/// not stable yet).
///
/// It sums erf x = 2/√π e^(−x²) Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)), whose terms are all positive,
/// so nothing cancels; beyond |x| = 6, erf x is ±1 to double precision.
///
/// ```
/// use hoyito_stats::erf;
/// assert!((erf(1.0) - 0.842_700_792_949_715).abs() < 1e-14);
/// assert_eq!(erf(-0.5), -erf(0.5));
/// ```
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a >= 6.0 {
        return x.signum();
    }
    let mut term = a;
    let mut sum = a;
    let mut k = 1.0;
    while term > sum * 1e-17 {
        term *= 2.0 * a * a / (2.0 * k + 1.0);
        sum += term;
        k += 1.0;
    }
    let value = 2.0 / std::f64::consts::PI.sqrt() * (-a * a).exp() * sum;
    value.min(1.0).copysign(x)
}
