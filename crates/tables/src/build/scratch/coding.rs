//! The code of the scratch moves: runs of pairs `(a, b)` sorted by `a` (then `b`), each
//! coded as
//!
//! ```text
//! count, first a, Rice parameter k, smallest b, width w of b's offsets
//! then for each pair: (a - previous a) >> k in unary, its k low bits, b - smallest b in w bits
//! ```
//!
//! (numbers in the header as 7 bits of width and the bits themselves). With `k` near the
//! logarithm of the mean gap, a gap costs about `k + 1.5` bits: the entropy of pairs drawn
//! at random, which the moves nearly are (measured on the 20-seed layer: 25.4 bits a move
//! against 26.3 for random pairs of the same density).

/// Bits written from the least significant up, into bytes.
#[derive(Default)]
pub(super) struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    /// Writes the `bits` low bits of `value` (`bits <= 32`).
    #[inline(always)]
    pub(super) fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32 && (bits == 32 || value >> bits == 0));
        // Fewer than 32 bits wait in `acc`, so these fit.
        self.acc |= value << self.n;
        self.n += bits;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// Writes `value` (any `u64`): its width in 7 bits, then its bits.
    pub(super) fn put_number(&mut self, value: u64) {
        let width = 64 - value.leading_zeros();
        self.put(width as u64, 7);
        put_wide(self, value, width);
    }

    /// Writes `q` in unary: `q` ones and a zero.
    #[inline(always)]
    pub(super) fn put_unary(&mut self, mut q: u64) {
        while q >= 31 {
            self.put(0x7fff_ffff, 31);
            q -= 31;
        }
        self.put((1 << q) - 1, q as u32 + 1);
    }

    /// Pads to the next byte.
    pub(super) fn align(&mut self) {
        let pad = (8 - self.n % 8) % 8;
        self.put(0, pad);
    }

    /// Bytes written so far (a partial byte counted whole).
    pub(super) fn bytes(&self) -> usize {
        self.out.len() + self.n.div_ceil(8) as usize
    }

    /// The bytes, the last one padded.
    pub(super) fn finish(mut self) -> Vec<u8> {
        self.align();
        let tail = (self.n / 8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..tail]);
        self.out
    }
}

/// Reads what a [`BitWriter`] wrote. Every read past the end gives `None`.
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    at: usize,
    acc: u64,
    n: u32,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader {
            bytes,
            at: 0,
            acc: 0,
            n: 0,
        }
    }

    /// Loads whole bytes until at least 57 bits wait in `acc` (or the bytes end).
    #[inline(always)]
    fn refill(&mut self) {
        if self.n > 56 {
            return;
        }
        if let Some(word) = self.bytes.get(self.at..self.at + 8) {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let take = (63 - self.n) / 8;
            // Only the whole bytes taken: the bits above them stay 0.
            let bits = self.n + 8 * take;
            self.acc |= (word << self.n) & mask(bits);
            self.at += take as usize;
            self.n = bits;
        } else {
            while self.n <= 56 && self.at < self.bytes.len() {
                self.acc |= (self.bytes[self.at] as u64) << self.n;
                self.at += 1;
                self.n += 8;
            }
        }
    }

    /// Reads `bits` bits (`bits <= 32`).
    #[inline(always)]
    pub(super) fn get(&mut self, bits: u32) -> Option<u64> {
        if self.n < bits {
            self.refill();
            if self.n < bits {
                return None;
            }
        }
        let v = self.acc & ((1u64 << bits) - 1);
        self.acc >>= bits;
        self.n -= bits;
        Some(v)
    }

    /// Reads what [`BitWriter::put_number`] wrote.
    pub(super) fn get_number(&mut self) -> Option<u64> {
        let width = self.get(7)? as u32;
        if width > 64 {
            return None;
        }
        get_wide(self, width)
    }

    /// Reads what [`BitWriter::put_unary`] wrote.
    #[inline(always)]
    pub(super) fn get_unary(&mut self) -> Option<u64> {
        let mut q = 0;
        loop {
            if self.n == 0 {
                self.refill();
                if self.n == 0 {
                    return None;
                }
            }
            let ones = self.acc.trailing_ones().min(self.n);
            if ones < self.n {
                self.acc = self.acc.checked_shr(ones + 1).unwrap_or(0);
                self.n -= ones + 1;
                return Some(q + ones as u64);
            }
            q += ones as u64;
            self.acc = 0;
            self.n = 0;
        }
    }

    /// Skips to the next byte.
    pub(super) fn align(&mut self) {
        let drop = self.n % 8;
        self.acc >>= drop;
        self.n -= drop;
    }

    /// The bit the reader is at, from the first byte's lowest.
    pub(super) fn bit(&self) -> u64 {
        8 * self.at as u64 - self.n as u64
    }

    /// The byte the reader is at.
    pub(super) fn byte(&self) -> u64 {
        (self.at - (self.n / 8) as usize) as u64
    }

    /// Whether every byte has been read (padding aside).
    pub(super) fn at_end(&mut self) -> bool {
        self.align();
        self.n == 0 && self.at == self.bytes.len()
    }
}

/// Writes a run of `pairs`, sorted, not empty.
pub(super) fn put_run(w: &mut BitWriter, pairs: &[(u64, u64)]) {
    let m = pairs.len() as u64;
    let (first, last) = (pairs[0].0, pairs[pairs.len() - 1].0);
    let mean_gap = (last - first) / m;
    let k = 63 - (mean_gap | 1).leading_zeros();
    let (b_min, b_max) = pairs
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), &(_, b)| (lo.min(b), hi.max(b)));
    let width = 64 - (b_max - b_min).leading_zeros();
    w.put_number(m);
    w.put_number(first);
    w.put(k as u64, 6);
    w.put_number(b_min);
    w.put(width as u64, 7);
    let mut prev = first;
    for &(a, b) in pairs {
        let gap = a - prev;
        w.put_unary(gap >> k);
        put_wide(w, gap & ((1 << k) - 1), k);
        put_wide(w, b - b_min, width);
        prev = a;
    }
}

/// Writes the `bits` low bits of `value`, `bits <= 64`.
#[inline(always)]
pub(super) fn put_wide(w: &mut BitWriter, value: u64, bits: u32) {
    if bits > 32 {
        w.put(value & 0xffff_ffff, 32);
        w.put(value >> 32, bits - 32);
    } else {
        w.put(value, bits);
    }
}

/// Reads `bits` bits, `bits <= 64`.
#[inline(always)]
fn get_wide(r: &mut BitReader, bits: u32) -> Option<u64> {
    if bits > 32 {
        Some(r.get(32)? | r.get(bits - 32)? << 32)
    } else {
        r.get(bits)
    }
}

/// The `bits` low bits set (`bits <= 64`).
#[inline(always)]
fn mask(bits: u32) -> u64 {
    u64::MAX.checked_shr(64 - bits).unwrap_or(0)
}

/// Reads a run that [`put_run`] wrote, handing each pair to `f`; `None` if the bytes
/// end inside it or do not make sense.
pub(super) fn get_run(r: &mut BitReader, mut f: impl FnMut(u64, u64)) -> Option<()> {
    let m = r.get_number()?;
    let first = r.get_number()?;
    let k = r.get(6)? as u32;
    let b_min = r.get_number()?;
    let width = r.get(7)? as u32;
    if k > 63 || width > 64 || m == 0 {
        return None;
    }
    let mut a = first;
    for _ in 0..m {
        // The common case in one load: a short unary part, k bits and width bits.
        r.refill();
        let ones = r.acc.trailing_ones();
        let bits = ones + 1 + k + width;
        if bits <= r.n {
            let acc = r.acc.checked_shr(ones + 1).unwrap_or(0);
            let gap = (ones as u64) << k | acc & mask(k);
            let b = (acc >> k) & mask(width);
            r.acc = r.acc.checked_shr(bits).unwrap_or(0);
            r.n -= bits;
            a = a.checked_add(gap)?;
            f(a, b.checked_add(b_min)?);
            continue;
        }
        let q = r.get_unary()?;
        let low = get_wide(r, k)?;
        a = a.checked_add(q.checked_mul(1 << k)? | low)?;
        let b = get_wide(r, width)?.checked_add(b_min)?;
        f(a, b);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_runs() {
        for pairs in [
            vec![
                (82u64, 2u64),
                (89, 290396554623966),
                (9223372036854775807, 0),
            ],
            vec![(82u64, 2u64), (9223372036854775807, 0)],
            vec![(82u64, 2u64), (1 << 40, 0)],
            vec![(82u64, 2u64), (1 << 40, 1 << 40)],
            vec![(82u64, 2u64), (1 << 20, 1 << 60)],
            vec![(82u64, 2u64), (89, (1 << 63) + 5), (9223372036854775807, 0)],
            vec![
                (82u64, 2u64),
                (89, 14868799549403899081),
                (9223372036854775807, 0),
            ],
            vec![(82u64, 0u64), (89, 1), (9223372036854775807, 0)],
        ] {
            let mut w = BitWriter::default();
            put_run(&mut w, &pairs);
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes);
            let mut got = Vec::new();
            get_run(&mut r, |a, b| got.push((a, b))).expect("a whole run");
            assert_eq!(got, pairs);
        }
    }

    #[test]
    fn runs_read_back_as_written() {
        let mut next = super::super::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut runs = Vec::new();
        for case in 0..200 {
            let m = 1 + (next() % 300) as usize;
            let spread = 1u64 << (next() % 40);
            let mut pairs: Vec<(u64, u64)> = (0..m)
                .map(|_| (next() % spread, next() >> (next() % 64)))
                .collect();
            if case % 7 == 0 {
                // Equal pairs and wide gaps at the extremes.
                pairs.push(pairs[0]);
                pairs.push((u64::MAX >> 1, 0));
            }
            pairs.sort_unstable();
            runs.push(pairs);
        }
        let mut w = BitWriter::default();
        for (i, run) in runs.iter().enumerate() {
            put_run(&mut w, run);
            if i % 3 == 0 {
                w.align();
            }
        }
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes);
        for (i, run) in runs.iter().enumerate() {
            let mut got = Vec::new();
            get_run(&mut r, |a, b| got.push((a, b))).expect("a whole run");
            assert_eq!(&got, run, "run {i}");
            if i % 3 == 0 {
                r.align();
            }
        }
        assert!(r.at_end());
        // A cut stream fails instead of inventing moves.
        let mut r = BitReader::new(&bytes[..bytes.len() / 2]);
        let mut ok = 0;
        while get_run(&mut r, |_, _| {}).is_some() {
            ok += 1;
        }
        assert!(ok < runs.len());
    }
}
