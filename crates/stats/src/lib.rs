//! # hoyito-stats
//!
//! Statistics of a match between two players, computed as the chess tester
//! [fastchess](https://github.com/Disservin/fastchess) computes them (its
//! `app/src/matchmaking/elo/` and `sprt/`), so that a figure printed by `solve match` means
//! what engine testers expect it to mean:
//!
//! - [`Trinomial`]: wins, draws and losses of single games, and [`Pentanomial`]: game pairs
//!   (each opening played twice with the sides swapped) by the points the pair scored, 0, ½,
//!   1, 1½ or 2.
//! - [`EloEstimate`]: the score, the logistic Elo difference with its 95% interval, the
//!   normalised Elo (nElo) and the likelihood of superiority (LOS). The pentanomial estimate
//!   is the one to report when games are paired: the two games of a pair share an opening,
//!   and counting pairs accounts for that.
//! - [`Sprt`]: the generalized sequential probability ratio test of fishtest and fastchess,
//!   with the normalised (default) or logistic Elo model, its bounds and [`Decision`].
//! - [`MeanInterval`]: a sample mean with its 95% interval, for seed margins.
//!
//! ```
//! use hoyito_stats::{Decision, Pentanomial, Sprt};
//! // Pairs scoring 0, 1/2, 1 (split into win-loss and draw-draw), 3/2 and 2 points.
//! let pairs = Pentanomial { ll: 34, ld: 54, wl: 31, dd: 32, wd: 64, ww: 75 };
//! let e = pairs.elo().unwrap();
//! assert_eq!(format!("{:.2} +/- {:.2}", e.elo, e.elo_error), "55.58 +/- 27.65");
//! let sprt: Sprt = "elo0=0 elo1=20 alpha=0.05 beta=0.05".parse().unwrap();
//! let llr = sprt.llr_pentanomial(&pairs);
//! assert_eq!(format!("{llr:.2}"), "4.49"); // above log(0.95 / 0.05) = 2.94
//! assert_eq!(sprt.decide(llr), Decision::AcceptH1);
//! ```
#![deny(missing_docs)]

mod counts;
mod elo;
mod mean;
mod sprt;

pub use counts::{Outcome, Pentanomial, Trinomial};
pub use elo::{erf, EloEstimate, CI95_Z};
pub use mean::MeanInterval;
pub use sprt::{Decision, Sprt, SprtError, SprtModel};
