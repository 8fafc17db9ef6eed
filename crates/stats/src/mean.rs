//! A sample mean with its 95% interval.

use crate::elo::CI95_Z;

/// The mean of a sample with its 95% interval, mean ± 1.96 s/√n, s being the sample standard
/// deviation (divided by n − 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanInterval {
    /// Values in the sample.
    pub n: u64,
    /// Their mean.
    pub mean: f64,
    /// Their standard deviation; 0 for one value.
    pub sd: f64,
    /// Half the width of the interval; infinite for one value (one value says nothing of the
    /// spread).
    pub error: f64,
}

impl MeanInterval {
    /// The mean of `values` and its interval, `None` when there is none.
    ///
    /// ```
    /// use hoyito_stats::MeanInterval;
    /// let m = MeanInterval::from_values([2.0, 4.0, 6.0]).unwrap();
    /// assert_eq!((m.mean, m.sd), (4.0, 2.0));
    /// assert!((m.error - 1.959963984540054 * 2.0 / 3f64.sqrt()).abs() < 1e-12);
    /// ```
    pub fn from_values(values: impl IntoIterator<Item = f64>) -> Option<Self> {
        let values: Vec<f64> = values.into_iter().collect();
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        if values.len() == 1 {
            return Some(MeanInterval {
                n: 1,
                mean,
                sd: 0.0,
                error: f64::INFINITY,
            });
        }
        let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        Some(MeanInterval {
            n: values.len() as u64,
            mean,
            sd,
            error: CI95_Z * sd / n.sqrt(),
        })
    }

    /// Lower end of the interval.
    pub fn lower(&self) -> f64 {
        self.mean - self.error
    }

    /// Upper end of the interval.
    pub fn upper(&self) -> f64 {
        self.mean + self.error
    }
}
