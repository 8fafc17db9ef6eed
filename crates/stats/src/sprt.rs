//! The generalized sequential probability ratio test of fishtest and fastchess.
//!
//! H0 says the Elo difference is `elo0`, H1 that it is `elo1`. The log-likelihood ratio
//! (LLR) of the results is the log of how much likelier they are under H1's closest
//! distribution than under H0's: for each hypothesis the maximum-likelihood distribution of
//! the outcomes whose expected score (logistic model) or normalised Elo (normalised model)
//! is the hypothesis's. The test accepts H1 when the LLR reaches log((1 − β)/α), H0 when it
//! falls to log(β/(1 − α)), and continues in between. The computation follows fastchess's
//! `app/src/matchmaking/sprt/sprt.cpp`, after Michel Van den Bergh's notes "Comparing the
//! approximations for the generalized log likelihood ratio of a multinomial distribution"
//! and "Comments on normalized Elo".

use std::fmt;
use std::str::FromStr;

use crate::counts::{Pentanomial, Trinomial};

/// How the test reads its Elo bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SprtModel {
    /// Normalised Elo (fastchess's and fishtest's default): the bounds do not depend on the
    /// draw ratio.
    #[default]
    Normalized,
    /// Logistic Elo: the bounds are expected scores, 1 / (1 + 10^(−elo/400)).
    Logistic,
}

impl SprtModel {
    /// The model's name, as `FromStr` reads it.
    pub fn name(self) -> &'static str {
        match self {
            SprtModel::Normalized => "normalized",
            SprtModel::Logistic => "logistic",
        }
    }
}

impl fmt::Display for SprtModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the test concludes from an LLR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The LLR reached the lower bound: the difference is `elo0` rather than `elo1`.
    AcceptH0,
    /// The LLR reached the upper bound: the difference is `elo1` rather than `elo0`.
    AcceptH1,
    /// Neither bound is reached: play on.
    Continue,
}

impl Decision {
    /// A short name: `H0`, `H1` or `continue`.
    pub fn name(self) -> &'static str {
        match self {
            Decision::AcceptH0 => "H0",
            Decision::AcceptH1 => "H1",
            Decision::Continue => "continue",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an SPRT cannot be set up.
#[derive(Clone, Debug, PartialEq)]
pub enum SprtError {
    /// `elo0` is not below `elo1` (or one is not a finite number).
    EloOrder {
        /// The lower hypothesis.
        elo0: f64,
        /// The upper hypothesis.
        elo1: f64,
    },
    /// `alpha` or `beta` is not strictly between 0 and 1, or they sum to 1 or more.
    ErrorRate {
        /// The false-positive rate.
        alpha: f64,
        /// The false-negative rate.
        beta: f64,
    },
    /// A `key=value` item of the text form is not understood.
    Item(String),
    /// The text form lacks `elo0` or `elo1`.
    Missing(&'static str),
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtError::EloOrder { elo0, elo1 } => {
                write!(f, "elo0 ({elo0}) must be below elo1 ({elo1})")
            }
            SprtError::ErrorRate { alpha, beta } => write!(
                f,
                "alpha ({alpha}) and beta ({beta}) must be between 0 and 1 and sum to less than 1"
            ),
            SprtError::Item(item) => write!(
                f,
                "'{item}' is not elo0=, elo1=, alpha=, beta= or model=normalized|logistic"
            ),
            SprtError::Missing(key) => write!(f, "{key}= is missing"),
        }
    }
}

impl std::error::Error for SprtError {}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`, with
/// false-positive rate `alpha` and false-negative rate `beta`.
///
/// ```
/// use hoyito_stats::{Decision, Sprt, Trinomial};
/// let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
/// assert_eq!(format!("{:.2} {:.2}", sprt.lower_bound(), sprt.upper_bound()), "-2.94 2.94");
/// let even = Trinomial { wins: 100, draws: 100, losses: 100 };
/// assert_eq!(sprt.decide(sprt.llr_trinomial(&even)), Decision::Continue);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: SprtModel,
}

impl Sprt {
    /// A test with the normalised model, or why the parameters make none.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtError> {
        // Written so that NaN fails too.
        if !(elo0 < elo1 && elo0.is_finite() && elo1.is_finite()) {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        if !(alpha > 0.0 && alpha < 1.0 && beta > 0.0 && beta < 1.0 && alpha + beta < 1.0) {
            return Err(SprtError::ErrorRate { alpha, beta });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model: SprtModel::Normalized,
        })
    }

    /// The same test under another Elo model.
    pub fn with_model(self, model: SprtModel) -> Self {
        Sprt { model, ..self }
    }

    /// The Elo difference of H0.
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// The Elo difference of H1.
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// The false-positive rate: accepting H1 when H0 holds.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The false-negative rate: accepting H0 when H1 holds.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The Elo model of the bounds.
    pub fn model(&self) -> SprtModel {
        self.model
    }

    /// The LLR at or below which H0 is accepted: log(β / (1 − α)).
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The LLR at or above which H1 is accepted: log((1 − β) / α).
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// What an LLR decides.
    pub fn decide(&self, llr: f64) -> Decision {
        if llr >= self.upper_bound() {
            Decision::AcceptH1
        } else if llr <= self.lower_bound() {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }

    /// The LLR of single games (fastchess without `-report penta`).
    ///
    /// Under the normalised model the LLR is NaN when a hypothesis lies so far from the
    /// results that the model finds no distribution for it (hundreds of normalised Elo, far
    /// beyond the few Elo an engine test uses); fastchess computes NaN there too. A NaN
    /// LLR decides nothing.
    pub fn llr_trinomial(&self, t: &Trinomial) -> f64 {
        let counts = [t.losses, t.draws, t.wins].map(regularize);
        let (total, probs) = distribution(counts);
        let scores = [0.0, 0.5, 1.0];
        match self.model {
            SprtModel::Normalized => {
                let [t0, t1] = [self.elo0, self.elo1].map(|e| e / NELO_SCALE);
                total * llr_normalized(&scores, &probs, t0, t1)
            }
            SprtModel::Logistic => {
                let [s0, s1] = [self.elo0, self.elo1].map(logistic_score);
                total * llr_logistic(&scores, &probs, s0, s1)
            }
        }
    }

    /// The LLR of game pairs, the one fastchess reports when games are paired (NaN in the
    /// same case as [`Sprt::llr_trinomial`]).
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        let counts = p.counts().map(regularize);
        let (total, probs) = distribution(counts);
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        match self.model {
            SprtModel::Normalized => {
                let [t0, t1] = [self.elo0, self.elo1].map(|e| 2f64.sqrt() * e / NELO_SCALE);
                total * llr_normalized(&scores, &probs, t0, t1)
            }
            SprtModel::Logistic => {
                let [s0, s1] = [self.elo0, self.elo1].map(logistic_score);
                total * llr_logistic(&scores, &probs, s0, s1)
            }
        }
    }
}

/// `elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized`, the items separated by spaces or
/// commas in any order; `alpha` and `beta` default to 0.05 and `model` to `normalized`.
impl FromStr for Sprt {
    type Err = SprtError;

    fn from_str(s: &str) -> Result<Self, SprtError> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        let mut model = SprtModel::Normalized;
        for item in s.split([' ', ',', '\t']).filter(|i| !i.is_empty()) {
            let bad = || SprtError::Item(item.to_string());
            let (key, value) = item.split_once('=').ok_or_else(bad)?;
            let number = || value.trim().parse::<f64>().map_err(|_| bad());
            match key.trim() {
                "elo0" => elo0 = Some(number()?),
                "elo1" => elo1 = Some(number()?),
                "alpha" => alpha = number()?,
                "beta" => beta = number()?,
                "model" => {
                    model = match value.trim() {
                        "normalized" => SprtModel::Normalized,
                        "logistic" => SprtModel::Logistic,
                        _ => return Err(bad()),
                    }
                }
                _ => return Err(bad()),
            }
        }
        let elo0 = elo0.ok_or(SprtError::Missing("elo0"))?;
        let elo1 = elo1.ok_or(SprtError::Missing("elo1"))?;
        Ok(Sprt::new(elo0, elo1, alpha, beta)?.with_model(model))
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={} elo1={} alpha={} beta={} model={}",
            self.elo0, self.elo1, self.alpha, self.beta, self.model
        )
    }
}

/// Normalised Elo per unit of score over standard deviation: 800 / ln 10.
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// The expected score of a logistic Elo difference.
fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A count, with an empty outcome counted as 0.001 so that every logarithm is finite.
fn regularize(count: u64) -> f64 {
    if count == 0 {
        1e-3
    } else {
        count as f64
    }
}

/// The total and the empirical distribution of counts.
fn distribution<const N: usize>(counts: [f64; N]) -> (f64, [f64; N]) {
    let total: f64 = counts.iter().sum();
    (total, counts.map(|c| c / total))
}

fn mean(x: &[f64], p: &[f64]) -> f64 {
    x.iter().zip(p).map(|(x, p)| x * p).sum()
}

fn mean_and_variance(x: &[f64], p: &[f64]) -> (f64, f64) {
    let mu = mean(x, p);
    let var = x.iter().zip(p).map(|(x, p)| p * (x - mu) * (x - mu)).sum();
    (mu, var)
}

/// The per-observation LLR between the maximum-likelihood distributions of expected score
/// `s0` and `s1` (Proposition 1.1 of Van den Bergh's "Comparing the approximations").
fn llr_logistic<const N: usize>(scores: &[f64; N], probs: &[f64; N], s0: f64, s1: f64) -> f64 {
    let mle = |s: f64| -> [f64; N] {
        // Solve equation 1.3 for theta.
        let min_theta = -1.0 / (scores[N - 1] - s);
        let max_theta = -1.0 / (scores[0] - s);
        let theta = itp(
            |x| {
                (0..N)
                    .map(|i| probs[i] * (scores[i] - s) / (1.0 + x * (scores[i] - s)))
                    .sum()
            },
            (min_theta, max_theta),
            (f64::INFINITY, f64::NEG_INFINITY),
            1e-3,
        );
        // The distribution of equation 1.2.
        std::array::from_fn(|i| probs[i] / (1.0 + theta * (scores[i] - s)))
    };
    log_ratio_mean(&mle(s0), &mle(s1), probs)
}

/// The per-observation LLR between the maximum-likelihood distributions of normalised
/// score `t0` and `t1` (section 4.1 of Van den Bergh's "Comments on normalized Elo").
fn llr_normalized<const N: usize>(scores: &[f64; N], probs: &[f64; N], t0: f64, t1: f64) -> f64 {
    let mle = |mu_ref: f64, t_star: f64| -> [f64; N] {
        // An iteration from the uniform distribution, as the note suggests.
        let mut p = [1.0 / N as f64; N];
        for _ in 0..10 {
            let (mu, var) = mean_and_variance(scores, &p);
            let sigma = var.sqrt();
            let phi: [f64; N] = std::array::from_fn(|i| {
                let z = (scores[i] - mu) / sigma;
                scores[i] - mu_ref - 0.5 * t_star * sigma * (1.0 + z * z)
            });
            let u = phi.iter().copied().fold(f64::INFINITY, f64::min);
            let v = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // Solve equation 4.9 for theta.
            let theta = itp(
                |x| (0..N).map(|i| probs[i] * phi[i] / (1.0 + x * phi[i])).sum(),
                (-1.0 / v, -1.0 / u),
                (f64::INFINITY, f64::NEG_INFINITY),
                1e-7,
            );
            let mut max_diff: f64 = 0.0;
            for i in 0..N {
                let new = probs[i] / (1.0 + theta * phi[i]);
                max_diff = max_diff.max((new - p[i]).abs());
                p[i] = new;
            }
            if max_diff < 1e-4 {
                break;
            }
        }
        p
    };
    log_ratio_mean(&mle(0.5, t0), &mle(0.5, t1), probs)
}

/// Σ pᵢ log(p1ᵢ / p0ᵢ).
fn log_ratio_mean<const N: usize>(p0: &[f64; N], p1: &[f64; N], probs: &[f64; N]) -> f64 {
    let lpr: [f64; N] = std::array::from_fn(|i| p1[i].ln() - p0[i].ln());
    mean(&lpr, probs)
}

/// A root of `f` between `a` and `b`, where `f` changes sign, to within `epsilon`: the ITP
/// method (Oliveira and Takahashi, "An Enhancement of the Bisection Method Average
/// Performance Preserving Minmax Optimality", ACM TOMS 47, 2021) with fastchess's constants
/// k₁ = 0.1, k₂ = 2, n₀ = 0.99. `f_ab` are the values at the ends (infinite at the poles the
/// callers use).
fn itp(f: impl Fn(f64) -> f64, (a, b): (f64, f64), (f_a, f_b): (f64, f64), epsilon: f64) -> f64 {
    const K1: f64 = 0.1;
    const K2: f64 = 2.0;
    const N0: f64 = 0.99;
    let (mut a, mut b, mut f_a, mut f_b) = if f_a > 0.0 {
        (b, a, f_b, f_a)
    } else {
        (a, b, f_a, f_b)
    };
    let n_half = ((b - a).abs() / (2.0 * epsilon)).log2().ceil();
    let n_max = n_half + N0;
    let mut i = 0.0;
    // The bound on steps only guards against a function that is not a number somewhere;
    // ITP needs at most n_max + 1.
    while (b - a).abs() > 2.0 * epsilon && i < 200.0 {
        let x_half = (a + b) / 2.0;
        let r = epsilon * 2f64.powf(n_max - i) - (b - a) / 2.0;
        let delta = K1 * (b - a).powf(K2);
        // Regula falsi; NaN while an end's value is infinite, and then the bisection wins.
        let x_f = (f_b * a - f_a * b) / (f_b - f_a);
        let sigma = (x_half - x_f) / (x_half - x_f).abs();
        let x_t = if delta <= (x_half - x_f).abs() {
            x_f + sigma * delta
        } else {
            x_half
        };
        let x_itp = if (x_t - x_half).abs() <= r {
            x_t
        } else {
            x_half - sigma * r
        };
        let f_itp = f(x_itp);
        if f_itp == 0.0 {
            a = x_itp;
            b = x_itp;
        } else if f_itp.is_sign_negative() {
            a = x_itp;
            f_a = f_itp;
        } else {
            b = x_itp;
            f_b = f_itp;
        }
        i += 1.0;
    }
    (a + b) / 2.0
}
