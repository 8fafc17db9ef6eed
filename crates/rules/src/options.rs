//! The rule options of Hoyito II and Hoyito III.

use std::fmt;
use std::str::FromStr;

use crate::error::RulesError;

/// Fewest holes per row the library accepts.
pub const MIN_HOLES: usize = 2;
/// Most holes per row the library accepts (extended Hoyito II).
pub const MAX_HOLES: usize = 12;
/// Most seeds per hole at the start.
pub const MAX_SEEDS: usize = 8;

/// One of the two players. South owns holes `0 .. H-1`, North owns `H .. 2H-1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The player whose row is drawn at the bottom; moves first from the start.
    South = 0,
    /// The player whose row is drawn at the top.
    North = 1,
}

impl Side {
    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// `0` for South, `1` for North.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter used in the notation: `S` or `N`.
    pub const fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Which capture rule is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Hoyito II: a capture continues backwards through every hole holding exactly 4.
    Hoyito2,
    /// Hoyito III: only the landing hole is captured.
    Hoyito3,
}

/// Who receives the seeds left on the board when a capture leaves 4 or fewer. Any award
/// combines with either variant (RULES.md lists it among the free options), e.g. Hoyito II
/// with the last four always to South.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LastFour {
    /// The player who made the capture (Hoyito II; Hoyito III in a match's first two rounds).
    Capturer,
    /// Always South (Hoyito III, South won the previous game).
    South,
    /// Always North (Hoyito III, North won the previous game).
    North,
}

/// Which holes may be captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureSide {
    /// A lap ending with 4 captures in either row.
    Any,
    /// Captures (chain links included) only in the opponent's row; a 4 in the mover's own
    /// row relays like any other occupied hole.
    Opponent,
}

/// A complete set of rule options. Build with [`Rules::new`] or start from a default and
/// change fields through the checked setters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    variant: Variant,
    holes: u8,
    seeds: u8,
    last_four: LastFour,
    capture_side: CaptureSide,
}

impl Default for Rules {
    /// Standard Hoyito II on 2x6 with 4 seeds a hole.
    fn default() -> Self {
        Rules {
            variant: Variant::Hoyito2,
            holes: 6,
            seeds: 4,
            last_four: LastFour::Capturer,
            capture_side: CaptureSide::Any,
        }
    }
}

impl Rules {
    /// Checks and builds a set of rules.
    ///
    /// ```
    /// use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};
    /// let r = Rules::new(Variant::Hoyito3, 6, 4, LastFour::North, CaptureSide::Any).unwrap();
    /// assert_eq!(r.total_seeds(), 48);
    /// assert!(Rules::new(Variant::Hoyito2, 13, 4, LastFour::Capturer, CaptureSide::Any).is_err());
    /// // The options combine freely: Hoyito II with the last four always to South.
    /// let r = Rules::new(Variant::Hoyito2, 6, 4, LastFour::South, CaptureSide::Any).unwrap();
    /// assert!(!r.is_symmetric());
    /// ```
    pub fn new(
        variant: Variant,
        holes: usize,
        seeds: usize,
        last_four: LastFour,
        capture_side: CaptureSide,
    ) -> Result<Rules, RulesError> {
        if !(MIN_HOLES..=MAX_HOLES).contains(&holes) {
            return Err(RulesError::Holes(holes));
        }
        if !(1..=MAX_SEEDS).contains(&seeds) {
            return Err(RulesError::Seeds(seeds));
        }
        Ok(Rules {
            variant,
            holes: holes as u8,
            seeds: seeds as u8,
            last_four,
            capture_side,
        })
    }

    /// Standard Hoyito II with `holes` holes a row (6 or 12) and 4 seeds a hole.
    pub fn hoyito2(holes: usize) -> Result<Rules, RulesError> {
        Rules::new(
            Variant::Hoyito2,
            holes,
            4,
            LastFour::Capturer,
            CaptureSide::Any,
        )
    }

    /// Standard Hoyito III: 2x6, 4 seeds a hole, last four to the capturer.
    pub fn hoyito3() -> Rules {
        Rules {
            variant: Variant::Hoyito3,
            ..Rules::default()
        }
    }

    /// The same rules with another number of holes a row.
    pub fn with_holes(self, holes: usize) -> Result<Rules, RulesError> {
        Rules::new(
            self.variant,
            holes,
            self.seeds as usize,
            self.last_four,
            self.capture_side,
        )
    }

    /// The same rules with another number of seeds a hole at the start.
    pub fn with_seeds(self, seeds: usize) -> Result<Rules, RulesError> {
        Rules::new(
            self.variant,
            self.holes as usize,
            seeds,
            self.last_four,
            self.capture_side,
        )
    }

    /// Chain captures (Hoyito II) or landing hole only (Hoyito III).
    pub const fn variant(&self) -> Variant {
        self.variant
    }
    /// Holes per row, `H`.
    #[inline]
    pub const fn holes(&self) -> usize {
        self.holes as usize
    }
    /// Seeds per hole at the start.
    pub const fn seeds(&self) -> usize {
        self.seeds as usize
    }
    /// Who receives the last seeds.
    pub const fn last_four(&self) -> LastFour {
        self.last_four
    }
    /// Which rows may be captured.
    pub const fn capture_side(&self) -> CaptureSide {
        self.capture_side
    }
    /// Seeds in the whole game: `2 * H * seeds`.
    pub const fn total_seeds(&self) -> usize {
        2 * self.holes as usize * self.seeds as usize
    }

    /// Who receives the last seeds when `capturer` ends the game by a capture.
    pub const fn last_four_to(&self, capturer: Side) -> Side {
        match self.last_four {
            LastFour::Capturer => capturer,
            LastFour::South => Side::South,
            LastFour::North => Side::North,
        }
    }

    /// Whether the game is the same with South and North exchanged.
    pub const fn is_symmetric(&self) -> bool {
        matches!(self.last_four, LastFour::Capturer)
    }
}

/// Rules built one option at a time, by value or from words (a command's flags, a protocol's
/// `setoption`, a JSON field, a Python keyword): the one place where options named in words
/// become [`Rules`]. It starts from the standard rules ([`Rules::builder`]) or from given
/// ones ([`Rules::to_builder`]); [`RulesBuilder::build`] checks the whole.
///
/// ```
/// use hoyito_rules::{Rules, Variant};
/// let mut b = Rules::builder().holes(12);
/// b.set("Variant", "hoyito3").unwrap();
/// b.set("last-four", "S").unwrap();
/// let r = b.build().unwrap();
/// assert_eq!((r.variant(), r.holes(), r.total_seeds()), (Variant::Hoyito3, 12, 96));
/// assert!(Rules::builder().holes(13).build().is_err());
/// assert!(Rules::builder().set("seeds", "many").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesBuilder {
    variant: Variant,
    holes: usize,
    seeds: usize,
    last_four: LastFour,
    capture_side: CaptureSide,
}

impl Rules {
    /// A builder that starts from the standard rules ([`Rules::default`]).
    pub fn builder() -> RulesBuilder {
        Rules::default().to_builder()
    }

    /// A builder that starts from these rules.
    pub fn to_builder(&self) -> RulesBuilder {
        RulesBuilder {
            variant: self.variant,
            holes: self.holes(),
            seeds: self.seeds(),
            last_four: self.last_four,
            capture_side: self.capture_side,
        }
    }
}

impl RulesBuilder {
    /// The option names [`RulesBuilder::set`] takes, as the project spells them.
    pub const OPTIONS: [&'static str; 5] =
        ["variant", "holes", "seeds", "last_four", "capture_side"];

    /// Sets the variant.
    pub fn variant(mut self, variant: Variant) -> Self {
        self.variant = variant;
        self
    }
    /// Sets the holes a row (checked by [`RulesBuilder::build`]).
    pub fn holes(mut self, holes: usize) -> Self {
        self.holes = holes;
        self
    }
    /// Sets the seeds a hole at the start (checked by [`RulesBuilder::build`]).
    pub fn seeds(mut self, seeds: usize) -> Self {
        self.seeds = seeds;
        self
    }
    /// Sets who receives the last seeds.
    pub fn last_four(mut self, last_four: LastFour) -> Self {
        self.last_four = last_four;
        self
    }
    /// Sets which rows may be captured.
    pub fn capture_side(mut self, capture_side: CaptureSide) -> Self {
        self.capture_side = capture_side;
        self
    }

    /// Sets the option named `key` (one of [`RulesBuilder::OPTIONS`], read without regard
    /// to case, spaces, `_` or `-`) from its word `value`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let name: String = key
            .chars()
            .filter(|c| !matches!(c, ' ' | '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect();
        let number = |option: &'static str| {
            value
                .trim()
                .parse::<usize>()
                .map_err(|_| RulesError::Unknown {
                    option,
                    value: value.to_string(),
                    expected: "a whole number",
                })
        };
        match name.as_str() {
            "variant" => self.variant = value.parse()?,
            "holes" => self.holes = number("holes")?,
            "seeds" => self.seeds = number("seeds")?,
            "lastfour" => self.last_four = value.parse()?,
            "captureside" => self.capture_side = value.parse()?,
            _ => {
                return Err(RulesError::Unknown {
                    option: "rule option",
                    value: key.to_string(),
                    expected: "variant, holes, seeds, last_four or capture_side",
                })
            }
        }
        Ok(())
    }

    /// The rules, checked as [`Rules::new`] checks them.
    pub fn build(self) -> Result<Rules, RulesError> {
        Rules::new(
            self.variant,
            self.holes,
            self.seeds,
            self.last_four,
            self.capture_side,
        )
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} 2x{}, {} seeds a hole, last four to {}, captures in {} row",
            self.variant, self.holes, self.seeds, self.last_four, self.capture_side
        )
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Hoyito2 => "hoyito2",
            Variant::Hoyito3 => "hoyito3",
        })
    }
}

impl fmt::Display for LastFour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LastFour::Capturer => "capturer",
            LastFour::South => "S",
            LastFour::North => "N",
        })
    }
}

impl fmt::Display for CaptureSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaptureSide::Any => "any",
            CaptureSide::Opponent => "opponent",
        })
    }
}

impl FromStr for Variant {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "hoyito2" | "ii" | "2" => Ok(Variant::Hoyito2),
            "hoyito3" | "iii" | "3" => Ok(Variant::Hoyito3),
            _ => Err(RulesError::Unknown {
                option: "variant",
                value: s.to_string(),
                expected: "hoyito2 or hoyito3",
            }),
        }
    }
}

impl FromStr for LastFour {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "capturer" => Ok(LastFour::Capturer),
            "S" | "s" | "south" => Ok(LastFour::South),
            "N" | "n" | "north" => Ok(LastFour::North),
            _ => Err(RulesError::Unknown {
                option: "last-four",
                value: s.to_string(),
                expected: "capturer, S or N",
            }),
        }
    }
}

impl FromStr for CaptureSide {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "any" => Ok(CaptureSide::Any),
            "opponent" => Ok(CaptureSide::Opponent),
            _ => Err(RulesError::Unknown {
                option: "capture-side",
                value: s.to_string(),
                expected: "any or opponent",
            }),
        }
    }
}
