//! What a step of the batch hands back, a row (or a value) a game: observations, legal
//! actions, rewards, ends and the side to move.

use hoyito_rules::{Position, Side};

use super::{view, Batch, Setup, Slot};

impl<const W: usize> Batch<W> {
    /// Writes the observation of every game, one after another, into `out`
    /// (`len() * observation_len()` values): the viewer's row (holes 1..H in sowing order),
    /// the other row, the viewer's captured seeds, the other side's.
    pub fn write_observations(&self, out: &mut [i16]) {
        let n = self.observation_len();
        for (s, o) in self.slots.iter().zip(out.chunks_exact_mut(n)) {
            self.setup().write_observation(s, o);
        }
    }

    /// Writes every game's legal actions into `out` (`len() * holes` values, row by row).
    pub fn write_masks(&self, out: &mut [bool]) {
        let h = self.rules.holes();
        for (s, o) in self.slots.iter().zip(out.chunks_exact_mut(h)) {
            write_mask(s, o);
        }
    }

    /// Writes the last step's rewards, terminations and truncations, and the side to move
    /// (0 South, 1 North) of every game.
    pub fn write_results(
        &self,
        rewards: &mut [f64],
        terminated: &mut [bool],
        truncated: &mut [bool],
        to_move: &mut [i8],
    ) {
        for (i, s) in self.slots.iter().enumerate() {
            write_result(s, i, rewards, terminated, truncated, to_move);
        }
    }
}

/// Where [`Batch::step_into`] writes the results of a step: `observations` and `masks` a
/// row a game (of [`Batch::observation_len`] and of holes values), the others a value a
/// game, as the `write_` methods of [`Batch`] write them.
pub struct StepOut<'a> {
    /// Observations, as [`Batch::write_observations`].
    pub observations: &'a mut [i16],
    /// Legal actions, as [`Batch::write_masks`].
    pub masks: &'a mut [bool],
    /// Rewards, as [`Batch::write_results`].
    pub rewards: &'a mut [f64],
    /// Terminations.
    pub terminated: &'a mut [bool],
    /// Truncations.
    pub truncated: &'a mut [bool],
    /// The side to move: 0 South, 1 North.
    pub to_move: &'a mut [i8],
}

impl<'a> StepOut<'a> {
    /// The rows of `rows` games at a time, in order (the last part may hold fewer), of a
    /// batch whose observations are `n` values and masks `holes`.
    pub(super) fn chunks(
        self,
        rows: usize,
        n: usize,
        holes: usize,
    ) -> impl Iterator<Item = StepOut<'a>> {
        let mut observations = self.observations.chunks_mut(rows * n);
        let mut masks = self.masks.chunks_mut(rows * holes);
        let mut rewards = self.rewards.chunks_mut(rows);
        let mut terminated = self.terminated.chunks_mut(rows);
        let mut truncated = self.truncated.chunks_mut(rows);
        let mut to_move = self.to_move.chunks_mut(rows);
        std::iter::from_fn(move || {
            Some(StepOut {
                observations: observations.next()?,
                masks: masks.next()?,
                rewards: rewards.next()?,
                terminated: terminated.next()?,
                truncated: truncated.next()?,
                to_move: to_move.next()?,
            })
        })
    }
}

/// Writes `s`'s legal actions into `out` (holes values).
#[inline]
fn write_mask<const W: usize>(s: &Slot<W>, out: &mut [bool]) {
    for (k, x) in out.iter_mut().enumerate() {
        *x = s.mask & (1 << k) != 0;
    }
}

/// Writes `s`'s reward, termination, truncation and side to move as value `i` of each.
#[inline]
fn write_result<const W: usize>(
    s: &Slot<W>,
    i: usize,
    rewards: &mut [f64],
    terminated: &mut [bool],
    truncated: &mut [bool],
    to_move: &mut [i8],
) {
    rewards[i] = f64::from(s.reward);
    terminated[i] = s.terminated;
    truncated[i] = s.truncated;
    to_move[i] = s.position.side_to_move().index() as i8;
}

impl<const W: usize> Setup<'_, W> {
    /// Values in one game's observation: two rows and two captured counts.
    #[inline]
    pub(super) fn observation_len(&self) -> usize {
        2 * self.rules.holes() + 2
    }

    /// Writes `s`'s observation into `out`.
    #[inline]
    fn write_observation(&self, s: &Slot<W>, out: &mut [i16]) {
        observe(&s.position, view(self.options, &s.position), out);
    }

    /// Writes `s`'s results as row `row` of `out`.
    #[inline]
    pub(super) fn write_row(&self, s: &Slot<W>, row: usize, out: &mut StepOut<'_>) {
        let (n, h) = (self.observation_len(), self.rules.holes());
        self.write_observation(s, &mut out.observations[row * n..(row + 1) * n]);
        write_mask(s, &mut out.masks[row * h..(row + 1) * h]);
        let StepOut {
            rewards,
            terminated,
            truncated,
            to_move,
            ..
        } = out;
        write_result(s, row, rewards, terminated, truncated, to_move);
    }
}

/// The observation of `p` for `side`, written into `out` (`2H + 2` values).
pub fn observe<const W: usize>(p: &Position<W>, side: Side, out: &mut [i16]) {
    let h = p.holes();
    let (own, other) = match side {
        Side::South => (0, h),
        Side::North => (h, 0),
    };
    for k in 0..h {
        out[k] = i16::from(p.seeds(own + k));
        out[h + k] = i16::from(p.seeds(other + k));
    }
    out[2 * h] = i16::from(p.captured(side));
    out[2 * h + 1] = i16::from(p.captured(side.opponent()));
}
