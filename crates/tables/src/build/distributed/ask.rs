//! How one process asks another for positions of its range: a piece of offsets or of bits
//! ([`AskForm`]), whichever is smaller.

/// How a piece of the indices one process asks of another holds them: its first element,
/// then the offsets in the owner's range (increasing, 4 bytes each), or a bit for every
/// offset of the owner's range (32 to an element), whichever is fewer. Bits are fewer when
/// more than one position in 32 of the range is asked, as with few processes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub(super) enum AskForm {
    Offsets = 0,
    Bits = 1,
}

/// The piece asking for the positions marked in `words`, the bitmap of one owner's range of
/// `len` positions: empty if none is marked, else its [`AskForm`] and the indices.
pub(super) fn ask_piece(words: &[u64], len: u64) -> Vec<u32> {
    let n: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
    if n == 0 {
        return Vec::new();
    }
    let elements = len.div_ceil(32);
    let mut piece = vec![];
    if elements < n {
        piece.reserve_exact(1 + elements as usize);
        piece.push(AskForm::Bits as u32);
        piece.extend(words.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]));
        piece.truncate(1 + elements as usize);
    } else {
        piece.reserve_exact(1 + n as usize);
        piece.push(AskForm::Offsets as u32);
        for (k, &word) in words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                piece.push((k as u64 * 64 + bits.trailing_zeros() as u64) as u32);
                bits &= bits - 1;
            }
        }
    }
    piece
}

/// The offsets a piece made by [`ask_piece`] asks for, increasing.
pub(super) fn asked_offsets(piece: &[u32]) -> Box<dyn Iterator<Item = u32> + '_> {
    match piece.split_first() {
        Some((&form, rest)) if form == AskForm::Bits as u32 => {
            Box::new(rest.iter().enumerate().flat_map(|(k, &w)| {
                let mut bits = w;
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let b = bits.trailing_zeros();
                        bits &= bits - 1;
                        k as u32 * 32 + b
                    })
                })
            }))
        }
        Some((_, rest)) => Box::new(rest.iter().copied()),
        None => Box::new(std::iter::empty()),
    }
}

/// Whether a piece made by [`ask_piece`] asks for `offset`.
pub(super) fn is_asked(piece: &[u32], offset: u32) -> bool {
    match piece.split_first() {
        Some((&form, rest)) if form == AskForm::Bits as u32 => rest
            .get((offset / 32) as usize)
            .is_some_and(|w| w >> (offset % 32) & 1 != 0),
        Some((_, rest)) => rest.binary_search(&offset).is_ok(),
        None => false,
    }
}

/// The indices in a piece made by [`ask_piece`].
pub(super) fn asked_count(piece: &[u32]) -> usize {
    match piece.split_first() {
        Some((&form, rest)) if form == AskForm::Bits as u32 => {
            rest.iter().map(|w| w.count_ones() as usize).sum()
        }
        Some((_, rest)) => rest.len(),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ask_takes_the_smaller_form_and_reads_back_the_same_offsets() {
        let len = 4096u64;
        for step in [1u64, 3, 31, 33, 200, 5000] {
            let offsets: Vec<u32> = (0..len).step_by(step as usize).map(|o| o as u32).collect();
            let mut words = vec![0u64; len.div_ceil(64) as usize];
            for &o in &offsets {
                words[(o / 64) as usize] |= 1 << (o % 64);
            }
            let piece = ask_piece(&words, len);
            let form = if step < 32 {
                AskForm::Bits
            } else {
                AskForm::Offsets
            };
            assert_eq!(piece[0], form as u32, "one in {step}");
            assert_eq!(
                piece.len(),
                1 + offsets.len().min(len.div_ceil(32) as usize)
            );
            assert_eq!(asked_offsets(&piece).collect::<Vec<u32>>(), offsets);
            assert_eq!(asked_count(&piece), offsets.len());
            for o in 0..len as u32 + 40 {
                assert_eq!(is_asked(&piece, o), offsets.contains(&o), "offset {o}");
            }
        }
        let none = ask_piece(&[0, 0], 128);
        assert!(none.is_empty());
        assert_eq!((asked_count(&none), is_asked(&none, 0)), (0, false));
        assert_eq!(asked_offsets(&none).count(), 0);
    }
}
